// Starting the control plane in this process for `serve` and `demo`: prepare the data
// directory, load @shield/control-plane only now (so `shield login` works without it), and
// turn the listen and configuration failures a user can fix into sentences.
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError, UsageError } from './errors.js';

/**
 * Creates `dataDir` (0700) when missing, with a `.gitignore` of `*`: the default directory is
 * in the working directory, often a repository, and it holds bootstrap.json's secrets.
 * @param {string} dataDir
 */
export function prepareDataDir(dataDir) {
  if (existsSync(dataDir)) {
    if (!statSync(dataDir).isDirectory()) throw new UsageError(`--data-dir ${dataDir} exists and is not a directory`);
    return;
  }
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(dataDir, '.gitignore'), '# written by shield: nothing in the control plane data directory belongs in git\n*\n');
  } catch (err) {
    throw new UsageError(`--data-dir ${dataDir}: cannot create it (${err.code ?? err.message})`);
  }
}

/**
 * startServer() of @shield/control-plane with user-facing errors.
 * @param {Record<string, unknown> & { port: number, host: string, dataDir: string }} options
 * @returns {Promise<any>} what startServer returns: { url, bootstrap, config, store, close, ... }
 */
export async function startControlPlane(options) {
  prepareDataDir(options.dataDir);
  let mod;
  try {
    mod = await import('@shield/control-plane');
  } catch (err) {
    throw new CliError(`cannot load @shield/control-plane (${err.message}); run npm install in the shield repository`);
  }
  const bootstrapFile = join(options.dataDir, 'bootstrap.json');
  const hadBootstrap = existsSync(bootstrapFile);
  // The server refuses this too; saying it here names the files and the way out in CLI terms.
  if (hadBootstrap && !existsSync(join(options.dataDir, 'shield.db'))) {
    throw new CliError(`${resolve(bootstrapFile)} belongs to a store that is gone (no shield.db beside it); move bootstrap.json away, or restore shield.db, and start again`);
  }
  try {
    return await mod.startServer(options);
  } catch (err) {
    // startServer bootstraps an empty store before it listens: a failed first start has
    // already made the owner and key, and no later start will print them.
    if (!hadBootstrap && existsSync(bootstrapFile)) {
      process.stderr.write(`shield: note: the owner's sign-in and the first API key were created before this failure; they are in ${resolve(bootstrapFile)}\n`);
    }
    const where = `${options.host}:${options.port}`;
    switch (err?.code) {
      case 'EADDRINUSE': throw new CliError(`${where} is already in use (another shield serve or npm start?); choose another port with --port`);
      case 'EACCES': throw new CliError(`not allowed to listen on ${where}; ports below 1024 need privileges, choose another with --port`);
      case 'EADDRNOTAVAIL': throw new UsageError(`--host ${options.host} is not an address of this machine`);
      case 'ENOTFOUND': case 'EAI_AGAIN': throw new UsageError(`--host ${options.host} does not resolve to an address`);
      case 'SQLITE_CANTOPEN': case 'EROFS': case 'EPERM': throw new CliError(`cannot open the store in ${resolve(options.dataDir)} (${err.message}); check --data-dir`);
      default:
        // resolveConfig's messages name an option; everything else is not the user's doing.
        if (err instanceof TypeError && /^control plane: option/.test(err.message)) throw new UsageError(err.message);
        throw err;
    }
  }
}
