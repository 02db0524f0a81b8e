/**
 * Setup file of every vitest config: after each test file, remove the temporary directories it made
 * through makeTempDir (test/support/git-repo.ts). Registered here, once, so no test file can forget.
 * Runs after the file's own afterAll hooks (hooks unwind in stack order), so servers and child
 * processes that still use a directory are closed first.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from './git-repo.js';

afterAll(removeTempDirs);
