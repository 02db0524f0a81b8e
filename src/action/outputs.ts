/** The action's outputs, from a run's result (names as in action.yml). */
import * as core from '@actions/core';
import { oneLine } from '../common/text.js';
import { formatUsd } from '../model/pricing.js';
import type { ActionResult } from './run-context.js';

export function setOutputs(r: ActionResult, set: (name: string, value: string) => void = core.setOutput): void {
  set('status', r.status);
  set('summary', r.summary);
  set('structured-output', r.structuredOutput ?? '');
  set('session-id', r.sessionId ?? '');
  set('branch', r.branch ?? '');
  set('pull-request', r.pullRequest ? String(r.pullRequest) : '');
  set('review-id', r.reviewId ? String(r.reviewId) : '');
  set('labels', (r.labels ?? []).join(','));
  set('turns', String(r.stats?.turns ?? 0));
  set('tokens', String(r.stats?.totalTokens ?? 0));
  set('cost-usd', formatUsd(r.stats?.costUsd ?? 0));
  set('shards', r.shards ?? '');
  set('shard-count', r.shardCount === undefined ? '' : String(r.shardCount));
  set('api-calls', r.apiCalls === undefined ? '' : String(r.apiCalls));
  // run-gemini-cli's `error`: why a failed run failed, on one line; empty on any other run.
  set('error', r.status === 'failed' ? oneLine(r.summary.split('\n')[0]) : '');
}
