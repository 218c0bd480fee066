/**
 * A form of labelled fields for an admin body: text, numbers, choices and JSON for the less common fields. The
 * API's own validation error is shown at the field it names (`param`: `value`, `conditions[0].key`,
 * `configurations.custom_host`); an error naming no field of the form is shown above the button.
 */
import { useState } from 'preact/hooks';
import { ApiError } from './api.ts';
import { ErrorNote } from './ui.tsx';

export interface Field {
  /** the body's key */
  name: string;
  label: string;
  kind?: 'text' | 'number' | 'password' | 'select' | 'json' | 'keys';
  /** select: the values ('' for none) */
  options?: readonly string[];
  required?: boolean;
  /** under the field, in plain words */
  hint?: string;
  placeholder?: string;
}

export type Values = Record<string, string>;

/** A field's text as its initial value: JSON pretty-printed, `keys` (group_by) as comma-separated names. */
export function fieldText(field: Field, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (field.kind === 'json') return JSON.stringify(value, null, 2);
  if (field.kind === 'keys' && Array.isArray(value)) return value.map((entry) => (entry as { key?: string }).key ?? '').join(', ');
  return String(value);
}

class FieldProblem extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
  }
}

/** The body: empty optional fields left out; numbers, JSON and key lists parsed (a bad one is a field error). */
function bodyOf(fields: readonly Field[], values: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of fields) {
    const text = (values[field.name] ?? '').trim();
    if (text === '') continue;
    if (field.kind === 'number') {
      const number = Number(text);
      if (!Number.isFinite(number)) throw new FieldProblem(field.name, `${field.label} must be a number.`);
      body[field.name] = number;
    } else if (field.kind === 'json') {
      try {
        body[field.name] = JSON.parse(text);
      } catch {
        throw new FieldProblem(field.name, `${field.label} is not valid JSON.`);
      }
    } else if (field.kind === 'keys') {
      body[field.name] = text.split(',').map((key) => key.trim()).filter(Boolean).map((key) => ({ key }));
    } else body[field.name] = field.kind === 'password' ? values[field.name] : text;
  }
  return body;
}

/** The field an API error names: the first part of its `param` (`conditions[0].key` -> conditions). */
function fieldOf(fields: readonly Field[], param: string | null): string | undefined {
  if (!param) return undefined;
  const head = param.replace(/^body\./, '').split(/[.[]/, 1)[0];
  return fields.find((field) => field.name === head)?.name;
}

export function FieldForm({ id, fields, initial, submitLabel, onSubmit, onDone }: {
  /** unique on the page: the inputs' ids derive from it */
  id: string;
  fields: readonly Field[];
  initial?: Values;
  submitLabel: string;
  onSubmit(body: Record<string, unknown>): Promise<unknown>;
  onDone(): void;
}) {
  const [values, setValues] = useState<Values>(() => ({ ...Object.fromEntries(fields.map((field) => [field.name, ''])), ...initial }));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<{ field?: string; error: unknown } | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem(null);
    try {
      await onSubmit(bodyOf(fields, values));
      onDone();
    } catch (error) {
      if (error instanceof FieldProblem) setProblem({ field: error.field, error: new ApiError(400, error.message, error.field, null) });
      else setProblem({ field: fieldOf(fields, error instanceof ApiError ? error.param : null), error });
    } finally {
      setBusy(false);
    }
  };
  const set = (name: string) => (event: Event) => setValues({ ...values, [name]: (event.target as HTMLInputElement).value });
  return (
    <form class="form" onSubmit={submit} noValidate aria-label={submitLabel}>
      {fields.map((field) => {
        const inputId = `${id}-${field.name}`;
        const wrong = problem?.field === field.name;
        const described = [field.hint ? `${inputId}-hint` : '', wrong ? `${inputId}-error` : ''].filter(Boolean).join(' ') || undefined;
        const common = { id: inputId, name: field.name, value: values[field.name], onInput: set(field.name), 'aria-invalid': wrong ? ('true' as const) : undefined, 'aria-describedby': described };
        return (
          <div class="field" key={field.name}>
            <label for={inputId}>{field.label}{field.required ? '' : ' (optional)'}</label>
            {field.kind === 'select' ? (
              <select {...common} onChange={set(field.name)}>{field.options!.map((option) => <option key={option} value={option}>{option || '—'}</option>)}</select>
            ) : field.kind === 'json' ? (
              <textarea {...common} rows={Math.min(10, Math.max(3, (values[field.name] ?? '').split('\n').length))} spellcheck={false} placeholder={field.placeholder} />
            ) : (
              field.kind === 'password'
                ? <input {...common} type="password" autocomplete="off" placeholder={field.placeholder} />
                : <input {...common} type="text" inputMode={field.kind === 'number' ? 'decimal' : undefined} placeholder={field.placeholder} />
            )}
            {field.hint && <small id={`${inputId}-hint`} class="muted">{field.hint}</small>}
            {wrong && <p class="field-error" id={`${inputId}-error`} role="alert" data-testid="field-error">{problem.error instanceof Error ? problem.error.message : String(problem.error)}</p>}
          </div>
        );
      })}
      {problem && !problem.field && <ErrorNote error={problem.error} />}
      <div class="row">
        <button type="submit" disabled={busy}>{submitLabel}</button>
      </div>
    </form>
  );
}
