/**
 * A partial's text is a mustache template itself (it may use variables, sections and other partials): a text
 * mustache cannot parse would fail every prompt that includes it, so it is refused when saved, naming `string`.
 */
import mustache from 'mustache';
import { invalidParam } from '../../core/errors.ts';

export function checkPartialTemplate(text: string): void {
  try {
    // a writer of its own: the shared one caches every text it parses, and these are one-off checks
    new mustache.Writer().parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'it does not parse';
    throw invalidParam('string', `string is not a valid mustache template: ${reason}.`, 'invalid_prompt_template');
  }
}
