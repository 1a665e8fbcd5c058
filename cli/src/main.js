// The `shield` command. Each command lives in commands/<name>.js and registers itself here;
// this file owns only the exit codes: 0 done, 1 a failure to read about, 2 a usage mistake
// (commander's own parse errors included), and a stack trace only for a real bug.
import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { registerServe } from './commands/serve.js';
import { registerLogin } from './commands/login.js';
import { registerDemo } from './commands/demo.js';
import { UsageError, CliError } from './errors.js';

const { version } = createRequire(import.meta.url)('../package.json');

/** @returns {Command} */
function buildProgram() {
  const program = new Command('shield')
    .description('shield command line: run and sign in to the control plane')
    .version(version)
    .showHelpAfterError('(shield --help lists the commands; shield <command> --help its options)')
    .exitOverride();
  registerServe(program);
  registerLogin(program);
  registerDemo(program);
  // Subcommands copy exitOverride from the program when created (so every parse error
  // reaches run() below); each gets a hint that names its own help.
  for (const cmd of program.commands) cmd.exitOverride().showHelpAfterError(`(shield ${cmd.name()} --help lists its options)`);
  return program;
}

/** @param {string[]} argv process.argv */
async function run(argv) {
  try {
    await buildProgram().parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // commander has already printed its message (or the help / version asked for)
      process.exit(err.exitCode === 0 ? 0 : 2);
    }
    if (err instanceof UsageError || err instanceof CliError) {
      process.stderr.write(`shield: ${err.message}\n`);
      process.exit(err.exitCode);
    }
    process.stderr.write(`shield: unexpected error (a bug; please report it):\n${err?.stack ?? err}\n`);
    process.exit(1);
  }
}

await run(process.argv);
