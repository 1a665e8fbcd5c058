// Promise wrapper over one sqlite3 connection. sqlite3 runs each statement on libuv's thread
// pool, so statements of two transactions could interleave on one connection: every write
// goes through transaction(), which runs one function at a time, in arrival order.
import sqlite3 from 'sqlite3';

/** The pragmas of every connection that writes. @param {'FULL' | 'NORMAL'} synchronous */
export function connectionPragmas(synchronous) {
  return `PRAGMA journal_mode = WAL; PRAGMA synchronous = ${synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;`;
}

export class Db {
  /** @param {import('sqlite3').Database} raw @param {string} file */
  constructor(raw, file) {
    this.raw = raw;
    this.file = file;
    /** @type {Promise<unknown>} */
    this.tail = Promise.resolve();
    /** @type {Map<string, import('sqlite3').Statement>} */
    this.statements = new Map();
    this.closed = false;
  }

  /**
   * Opens (and with readonly false, creates) a database file.
   * @param {string} file
   * @param {{ readonly?: boolean }} [options]
   * @returns {Promise<Db>}
   */
  static open(file, options = {}) {
    const mode = options.readonly ? sqlite3.OPEN_READONLY : sqlite3.OPEN_READWRITE | sqlite3.OPEN_CREATE;
    return new Promise((resolve, reject) => {
      const raw = new sqlite3.Database(file, mode, (err) => (err ? reject(err) : resolve(new Db(raw, file))));
    });
  }

  /** Runs one or more statements without parameters. @param {string} sql @returns {Promise<void>} */
  exec(sql) {
    return new Promise((resolve, reject) => this.raw.exec(sql, (err) => (err ? reject(err) : resolve())));
  }

  /** @param {string} sql */
  prepared(sql) {
    let st = this.statements.get(sql);
    if (st === undefined) {
      st = this.raw.prepare(sql);
      this.statements.set(sql, st);
    }
    return st;
  }

  /**
   * Runs a write statement (cached prepared statement).
   * @param {string} sql @param {unknown[]} [params]
   * @returns {Promise<{ changes: number, lastID: number }>}
   */
  run(sql, params = []) {
    const st = this.prepared(sql);
    return new Promise((resolve, reject) => {
      st.run(params, function done(err) {
        if (err) reject(err);
        else resolve({ changes: this.changes, lastID: this.lastID });
      });
    });
  }

  /**
   * First row or undefined. The statement is reset at once: a half-read statement would keep
   * a read snapshot open and hold back WAL checkpoints.
   * @param {string} sql @param {unknown[]} [params] @returns {Promise<any>}
   */
  get(sql, params = []) {
    const st = this.prepared(sql);
    return new Promise((resolve, reject) => {
      st.get(params, (err, row) => {
        st.reset(() => (err ? reject(err) : resolve(row)));
      });
    });
  }

  /** @param {string} sql @param {unknown[]} [params] @returns {Promise<any[]>} */
  all(sql, params = []) {
    const st = this.prepared(sql);
    return new Promise((resolve, reject) => st.all(params, (err, rows) => (err ? reject(err) : resolve(rows))));
  }

  /**
   * Runs fn inside BEGIN IMMEDIATE ... COMMIT, one transaction at a time; rolls back if fn throws.
   * @template T
   * @param {(db: Db) => Promise<T>} fn
   * @returns {Promise<T>}
   */
  transaction(fn) {
    const result = this.tail.then(async () => {
      await this.exec('BEGIN IMMEDIATE');
      try {
        const value = await fn(this);
        await this.exec('COMMIT');
        return value;
      } catch (err) {
        await this.exec('ROLLBACK').catch(() => {});
        throw err;
      }
    });
    this.tail = result.catch(() => {});
    return result;
  }

  /** Finalizes cached statements (else close fails with SQLITE_BUSY), then closes. */
  async close() {
    if (this.closed) return;
    this.closed = true;
    await this.tail;
    for (const st of this.statements.values()) await new Promise((resolve) => st.finalize(() => resolve(undefined)));
    this.statements.clear();
    await new Promise((resolve, reject) => this.raw.close((err) => (err ? reject(err) : resolve(undefined))));
  }
}
