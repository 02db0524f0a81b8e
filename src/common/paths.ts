import { isAbsolute, relative, sep } from 'node:path';

/** Whether abs is root or below it. A name that merely starts with dots (`..notes`) is inside. */
export function isInside(root: string, abs: string): boolean {
  const rel = relative(root, abs);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
