// The two ways a command fails on purpose. main.js prints their message alone (no stack):
// the user made a mistake or the world said no, and a stack trace would only hide that.

/** A bad flag or argument: exit code 2, like commander's own usage errors. */
export class UsageError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'UsageError';
    this.exitCode = 2;
  }
}

/** Anything else the user should read and act on (a refused login, a port in use): exit code 1. */
export class CliError extends Error {
  /** @param {string} message @param {number} [exitCode] */
  constructor(message, exitCode = 1) {
    super(message);
    this.name = 'CliError';
    this.exitCode = exitCode;
  }
}
