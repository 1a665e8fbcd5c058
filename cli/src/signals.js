// Ctrl-C and `kill` stop a long-running command cleanly: `stop` runs once, then the process
// exits. A second signal while stopping exits at once, for the impatient and the stuck.

/** @param {() => Promise<void>} stop @param {(line: string) => void} [say] */
export function stopOnSignals(stop, say = (line) => process.stderr.write(`${line}\n`)) {
  let stopping = false;
  const onSignal = (signal) => {
    if (stopping) {
      say(`${signal} again: exiting now`);
      process.exit(130);
    }
    stopping = true;
    say(`${signal}: stopping...`);
    stop().then(
      () => process.exit(0),
      (err) => {
        say(`shield: error while stopping: ${err?.message ?? err}`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
