/**
 * The action's entry (dist/index.js): runs main with the @actions/core toolkit and turns its
 * result into outputs. A failure sets the failed status with an annotation naming the input or
 * file at fault; skipped and awaiting_approval runs end green.
 */
import * as core from '@actions/core';
import { isAgentError, messageOf } from '../common/errors.js';
import { main, type ActionFace } from './main.js';
import { setOutputs } from './outputs.js';

export async function run(): Promise<void> {
  const face: ActionFace = {
    env: process.env,
    setSecret: core.setSecret,
    log: {
      info: (l) => core.info(l),
      notice: (l) => core.notice(l),
      warning: (l) => core.warning(l),
      group: (title, fn) => core.group(title, fn),
    },
    writeSummary: async (md) => {
      await core.summary.addRaw(md, true).write();
    },
  };
  try {
    const result = await main(face);
    setOutputs(result);
    if (result.status === 'failed') core.setFailed(result.summary.split('\n')[0]);
  } catch (e) {
    setOutputs({ status: 'failed', summary: messageOf(e) });
    if (isAgentError(e)) {
      for (const d of e.details.slice(1)) core.error(d, { title: e.site.input ? `input ${e.site.input}` : undefined, file: e.site.file, startLine: e.site.line });
      core.setFailed(e.message);
      core.error(e.message, { title: e.site.input ? `input ${e.site.input}` : `agent-action: ${e.kind}`, file: e.site.file, startLine: e.site.line });
    } else {
      core.setFailed(messageOf(e));
    }
  }
}

void run();
