/**
 * Azure answers in OpenAI's format plus Azure's content-filter annotations, `prompt_filter_results` and per-choice
 * `content_filter_results` (https://learn.microsoft.com/en-us/azure/ai-services/openai/concepts/content-filter):
 * extra fields that OpenAI clients ignore, so they are kept, and the provider's bytes pass untouched.
 * The one change: when the answer names no model, `x-gateway-azure-model-name` does.
 */
import { UNCHANGED, type ResponseTransform } from '../contract.ts';
import { isRecord } from '../shared/json.ts';

export const MODEL_NAME_SETTING = 'azure-model-name';

/** `list`: the array an answer of this route must carry (`choices` for chat and completions, `data` for embeddings). */
export function reportModel(list: 'choices' | 'data'): ResponseTransform {
  return (json, _call, target) => {
    if (!isRecord(json) || !Array.isArray(json[list])) throw new Error(`the answer has no ${list} array`);
    const name = target.cloud[MODEL_NAME_SETTING];
    if (!name || (typeof json.model === 'string' && json.model !== '')) return UNCHANGED;
    return { ...json, model: name };
  };
}
