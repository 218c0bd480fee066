/**
 * OpenAI chat messages -> Gemini `contents` and `systemInstruction`.
 * https://ai.google.dev/api/generate-content#request-body
 * https://ai.google.dev/api/caching#Content (Content, Part, Blob, FileData, FunctionCall, FunctionResponse)
 * https://ai.google.dev/gemini-api/docs/thought-signatures (a functionCall part's thoughtSignature goes back as sent)
 */
import { invalidParam } from '../../core/errors.ts';
import type { ChatMessage, ContentPart, ToolCall } from '../../core/openai-types.ts';
import { isRecord } from '../shared/json.ts';
import { droppedParameter } from '../shared/warnings.ts';

export type GeminiPart = Record<string, unknown>;
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

export interface GeminiMessages {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  warnings: string[];
}

const MIME_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif', heic: 'image/heic',
  heif: 'image/heif', pdf: 'application/pdf', mp3: 'audio/mp3', wav: 'audio/wav', flac: 'audio/flac',
  mp4: 'video/mp4', mov: 'video/mov', txt: 'text/plain',
};

/** Vertex AI requires a MIME type on fileData; a URL whose extension says nothing is taken for a JPEG image. */
function mimeTypeOf(url: string, fallback: string): string {
  const path = url.split(/[?#]/)[0] ?? '';
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  return MIME_BY_EXTENSION[extension] ?? fallback;
}

/** A data: URL -> inlineData (base64); an http(s) or gs:// URL (or a Files API URI) -> fileData. */
function mediaPart(url: string, fallbackMime: string, param: string): GeminiPart {
  const data = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url);
  if (data) {
    const base64 = data[2]!.split(';').includes('base64');
    const bytes = base64 ? data[3]! : Buffer.from(decodeURIComponent(data[3]!), 'utf8').toString('base64');
    return { inlineData: { mimeType: data[1] || fallbackMime, data: bytes } };
  }
  if (/^(https?|gs):\/\//i.test(url)) return { fileData: { mimeType: mimeTypeOf(url, fallbackMime), fileUri: url } };
  throw invalidParam(param, 'Gemini takes media as a data: URL or an http(s):// or gs:// URL.', 'invalid_media_url');
}

/** The text of a text part (any other part has none). */
function textOf(part: ContentPart): string | undefined {
  const text = (part as { text?: unknown }).text;
  return typeof text === 'string' ? text : undefined;
}

function contentParts(content: string | ContentPart[] | null | undefined, param: string, warnings: Set<string>, provider: string): GeminiPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.map((part, index): GeminiPart => {
    const at = `${param}[${index}]`;
    if ('cache_control' in part && part.cache_control) warnings.add(droppedParameter(provider, 'cache_control', 'not supported (Gemini caches prompts implicitly)'));
    const text = textOf(part);
    if (part.type === 'text' && text !== undefined) return { text };
    if (part.type === 'image_url' && isRecord(part.image_url) && typeof part.image_url.url === 'string') {
      return mediaPart(part.image_url.url, 'image/jpeg', `${at}.image_url.url`);
    }
    if (part.type === 'input_audio' && isRecord(part.input_audio) && typeof part.input_audio.data === 'string') {
      const format = typeof part.input_audio.format === 'string' ? part.input_audio.format : 'wav';
      return { inlineData: { mimeType: `audio/${format}`, data: part.input_audio.data } };
    }
    if (part.type === 'file' && isRecord(part.file)) {
      const { file_data: fileData, file_id: fileId, filename } = part.file;
      const fallback = typeof filename === 'string' ? mimeTypeOf(filename, 'application/pdf') : 'application/pdf';
      if (typeof fileData === 'string') {
        return fileData.startsWith('data:') ? mediaPart(fileData, fallback, `${at}.file.file_data`) : { inlineData: { mimeType: fallback, data: fileData } };
      }
      if (typeof fileId === 'string') return { fileData: { mimeType: fallback, fileUri: fileId } };
    }
    throw invalidParam(at, `Content part type "${String(part.type)}" cannot be sent to Gemini.`, 'unsupported_content_part');
  });
}

function parseArguments(text: string, param: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidParam(param, 'Tool call arguments must be a JSON object.', 'invalid_tool_arguments');
  }
  if (!isRecord(parsed)) throw invalidParam(param, 'Tool call arguments must be a JSON object.', 'invalid_tool_arguments');
  return parsed;
}

function functionCallPart(call: ToolCall, param: string): GeminiPart {
  return {
    functionCall: { name: call.function.name, args: parseArguments(call.function.arguments, `${param}.function.arguments`) },
    ...(call.thought_signature ? { thoughtSignature: call.thought_signature } : {}),
  };
}

/**
 * A tool's answer. Gemini wants an object: one the tool wrote as a JSON object is sent as it is (Gemini reads the
 * whole object as the output); anything else is wrapped as `{ output }`, the key Gemini documents for it.
 */
function functionResponsePart(name: string, content: string | ContentPart[] | null): GeminiPart {
  const text = typeof content === 'string' ? content : (content ?? []).map((part) => textOf(part) ?? '').join('');
  let response: Record<string, unknown> = { output: text };
  try {
    const parsed: unknown = JSON.parse(text);
    response = isRecord(parsed) ? parsed : { output: parsed };
  } catch {
    // plain text output
  }
  return { functionResponse: { name, response } };
}

function systemText(content: string | ContentPart[]): GeminiPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  return content.flatMap((part) => {
    const text = textOf(part);
    return text === undefined ? [] : [{ text }];
  });
}

/** `provider` is the adapter the warnings name (google, or vertex-ai). */
export function toGeminiMessages(messages: ChatMessage[], provider: string): GeminiMessages {
  const warnings = new Set<string>();
  const system: GeminiPart[] = [];
  const contents: GeminiContent[] = [];
  // tool_call_id -> function name, from the assistant turns seen so far (Gemini names results, OpenAI ids them)
  const names = new Map<string, string>();

  // consecutive tool results answer one model turn: Gemini wants them together in one user turn
  const pushResponse = (part: GeminiPart) => {
    const last = contents.at(-1);
    if (last?.role === 'user' && last.parts.every((item) => 'functionResponse' in item)) last.parts.push(part);
    else contents.push({ role: 'user', parts: [part] });
  };

  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer':
        system.push(...systemText(message.content));
        return;
      case 'user': {
        const parts = contentParts(message.content, `${param}.content`, warnings, provider);
        if (parts.length > 0) contents.push({ role: 'user', parts });
        return;
      }
      case 'assistant': {
        const parts = contentParts(message.content ?? null, `${param}.content`, warnings, provider).filter((part) => 'text' in part);
        (message.tool_calls ?? []).forEach((call, callIndex) => {
          names.set(call.id, call.function.name);
          parts.push(functionCallPart(call, `${param}.tool_calls[${callIndex}]`));
        });
        if (message.function_call) {
          parts.push({ functionCall: { name: message.function_call.name, args: parseArguments(message.function_call.arguments, `${param}.function_call.arguments`) } });
        }
        if (parts.length > 0) contents.push({ role: 'model', parts });
        return;
      }
      case 'tool': {
        const name = names.get(message.tool_call_id);
        if (name === undefined) {
          throw invalidParam(`${param}.tool_call_id`, `No earlier assistant tool call has the id "${message.tool_call_id}".`, 'unknown_tool_call_id');
        }
        pushResponse(functionResponsePart(name, message.content));
        return;
      }
      case 'function':
        pushResponse(functionResponsePart(message.name, message.content));
        return;
    }
  });
  return {
    contents,
    ...(system.length > 0 ? { systemInstruction: { parts: system } } : {}),
    warnings: [...warnings],
  };
}
