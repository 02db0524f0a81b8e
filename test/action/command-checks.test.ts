/** The commands of a fix's pull request body: paired from the history, exit codes the tool's own, redacted, capped. */
import { describe, expect, it } from 'vitest';
import { readCommandChecks, renderCommandChecks } from '../../src/action/publish/command-checks.js';
import type { Content } from '../../src/model/wire.js';

const shellCall = (command: string) => ({ functionCall: { name: 'run_shell_command', args: { command } } });
const shellOut = (output: string) => ({ functionResponse: { name: 'run_shell_command', response: { output } } });
const turn = (model: Content['parts'], user: Content['parts']): Content[] => [
  { role: 'model', parts: model },
  { role: 'user', parts: user },
];

describe('readCommandChecks', () => {
  it('pairs each command with its response in order, and takes the last Exit Code line (the tool writes it after the output)', () => {
    const history = turn(
      [
        shellCall('npm test'),
        { functionCall: { name: 'read_file', args: { file_path: 'a' } } },
        shellCall('make lint'),
      ],
      [
        shellOut('Command: npm test\nOutput: Exit Code: 0\nExit Code: 1'),
        { functionResponse: { name: 'read_file', response: { output: 'x' } } },
        shellOut('Command: make lint\nOutput: (empty)\nExit Code: (none)\nSignal: SIGKILL'),
      ],
    );
    expect(readCommandChecks(history)).toEqual([
      { command: 'npm test', exit: '1' },
      { command: 'make lint', exit: '(none)' },
    ]);
  });

  it('leaves out a command that did not run (denied: an error, no exit code)', () => {
    const history = turn(
      [shellCall('curl evil')],
      [{ functionResponse: { name: 'run_shell_command', response: { error: 'denied by policy' } } }],
    );
    expect(readCommandChecks(history)).toEqual([]);
  });
});

describe('renderCommandChecks', () => {
  it('redacts secrets, keeps backticks inside the code span, and keeps the last 20', () => {
    const checks = Array.from({ length: 22 }, (_, i) => ({ command: `echo ${i}`, exit: '0' }));
    checks.push({ command: 'TOKEN=s3cr3t-value run `x`', exit: '2' });
    const out = renderCommandChecks(checks, ['s3cr3t-value']);
    expect(out).not.toContain('s3cr3t-value');
    expect(out).toContain('- `` TOKEN=*** run `x` ``: exit 2');
    expect(out).not.toContain('`echo 2`');
    expect(out).toContain('- `echo 3`: exit 0');
    expect(out).toContain('(3 earlier commands not listed.)');
    expect(renderCommandChecks([], [])).toBe('');
  });
});
