/**
 * node:child_process, loaded when a process is first started rather than when a module that can
 * start one is imported. Requiring it loads Node's child_process, dgram and socket-list internals
 * (~4 ms), and the sandbox is imported on the way to a run's first model request, which starts no
 * process (the sandbox probe starts when the first answer arrives). Synchronous, so spawn stays
 * synchronous for its callers.
 */
export const childProcess = (): typeof import('node:child_process') => process.getBuiltinModule('node:child_process');
