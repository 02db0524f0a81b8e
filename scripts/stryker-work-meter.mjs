// A Stryker ignorer (stryker.config.mjs: `ignorers: ['work-meter']`). The untrusted-text scanners
// count the characters they examine on a WorkMeter (src/context/linear-scan.ts) so that tests can
// assert their work is linear. Those counts are instrumentation, not behaviour: no user or model
// ever sees them, and a mutant that counts less (`+=` to `-=`, `* 2` to `/ 2`) changes no output,
// it only loosens the upper bound the linear-work tests check. So the mutants inside a statement
// that adds to a meter's `steps` are not counted; everything the scanners compute still is.
import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** `meter.steps += …` or `this.meter.steps += …`. */
function addsToMeter(node) {
  if (node.type !== 'ExpressionStatement' || node.expression.type !== 'AssignmentExpression') return false;
  const left = node.expression.left;
  if (
    left.type !== 'MemberExpression' ||
    left.computed ||
    left.property.type !== 'Identifier' ||
    left.property.name !== 'steps'
  )
    return false;
  const owner = left.object;
  return (
    (owner.type === 'Identifier' && owner.name === 'meter') ||
    (owner.type === 'MemberExpression' &&
      !owner.computed &&
      owner.property.type === 'Identifier' &&
      owner.property.name === 'meter')
  );
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'work-meter', {
    shouldIgnore(path) {
      return addsToMeter(path.node)
        ? 'WorkMeter accounting for the linear-work tests, not behaviour (scripts/stryker-work-meter.mjs)'
        : undefined;
    },
  }),
];
