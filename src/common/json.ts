/** JSON with object keys sorted at every level: the form policy `argsPattern` is tested against. */
export function stableStringify(value: unknown): string {
  // Strings, numbers and the like have no keys to sort: skip the copy (policy tests every call's arguments).
  return JSON.stringify(value !== null && typeof value === 'object' ? sortKeys(value) : value);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value as object).sort()) out[k] = sortKeys((value as Record<string, unknown>)[k]);
    return out;
  }
  return value;
}
