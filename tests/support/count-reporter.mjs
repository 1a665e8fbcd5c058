// Prints the closing line CI reads: `N passed, N failed, N skipped`.
// A test file that fails to load counts as one failure, and so does every unhandled error.
export default class CountReporter {
  onTestRunEnd(testModules, unhandledErrors) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of testModules) {
      let tests = 0;
      for (const t of mod.children.allTests()) {
        tests++;
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (tests === 0 || mod.state() === 'failed') {
        const errs = mod.errors ? mod.errors().length : 0;
        if (errs > 0 || tests === 0) failed++;
      }
    }
    failed += unhandledErrors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
