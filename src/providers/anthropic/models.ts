/**
 * Anthropic's model list -> OpenAI's list shape, Anthropic's own fields kept beside.
 * https://docs.anthropic.com/en/api/models-list: `{data:[{type:"model", id, display_name, created_at}], has_more,
 * first_id, last_id}`, paged with `limit`, `before_id` and `after_id`, which pass through in the query.
 */
import { isRecord } from '../shared/json.ts';

export function fromAnthropicModels(json: unknown): Record<string, unknown> {
  if (!isRecord(json) || !Array.isArray(json.data)) throw new Error('the answer is not an Anthropic model list');
  const data = json.data.map((model) => {
    if (!isRecord(model) || typeof model.id !== 'string') throw new Error('a model has no id');
    const created = typeof model.created_at === 'string' ? Date.parse(model.created_at) : Number.NaN;
    return {
      ...model,
      id: model.id,
      object: 'model',
      // an unknown release date is left out rather than written as 0
      ...(Number.isFinite(created) ? { created: Math.floor(created / 1000) } : {}),
      owned_by: 'anthropic',
    };
  });
  const { data: _data, ...paging } = json;
  return { object: 'list', data, ...paging };
}
