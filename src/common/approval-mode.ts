/**
 * How much the policy engine lets through without asking (Gemini CLI's approval modes). Here, below
 * every layer, because the system prompt (context/) describes the mode and the policy engine
 * (policy/) decides by it.
 */
export type ApprovalMode = 'default' | 'autoEdit' | 'yolo' | 'plan';
