/**
 * The Gemini wire shapes this project keeps in history. Plain JSON, so a session serializes
 * as it is. Parts are kept verbatim as the model sent them (thought signatures, function-call ids,
 * and any field we do not know yet ride along through the index signature).
 */
export interface FunctionCall {
  id?: string;
  name: string;
  args?: Record<string, unknown>;
}

interface FunctionResponse {
  id?: string;
  name: string;
  response: Record<string, unknown>;
}

export interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
  [field: string]: unknown;
}

export interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

/** What the model is told about one tool. Built fresh per request. */
export interface FunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema: Record<string, unknown>;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  thoughtTokens: number;
  totalTokens: number;
}
