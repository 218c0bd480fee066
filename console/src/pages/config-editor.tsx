/**
 * The JSON editor of a config. A syntax error is shown at its line; the API's validation error (the same schema
 * as every saved config) names a path (`config.targets[0].retry.attempts`): the editor selects that part of the
 * text, shows its line, and says what is wrong.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, describeError } from '../api.ts';
import { lineOf, locate, parsePath } from '../json-path.ts';

interface Problem {
  message: string;
  path: string | null;
  line: number | null;
  /** the offending line, split around the part to mark */
  context: [string, string, string] | null;
}

function problemAt(text: string, message: string, path: string | null, start: number | null, end: number | null): Problem {
  if (start === null || end === null) return { message, path, line: null, context: null };
  const { line } = lineOf(text, start);
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const lineEndAt = text.indexOf('\n', start);
  const lineEnd = lineEndAt === -1 ? text.length : lineEndAt;
  const markEnd = Math.min(end, lineEnd);
  return { message, path, line, context: [text.slice(lineStart, start), text.slice(start, markEnd), text.slice(markEnd, lineEnd)] };
}

export interface EditorProps {
  initial: string;
  label: string;
  saveLabel: string;
  /** saves the parsed config; an ApiError with `param` is shown at that path */
  onSave(config: unknown): Promise<void>;
  disabled?: boolean;
}

export function ConfigEditor({ initial, label, saveLabel, onSave, disabled }: EditorProps) {
  const [text, setText] = useState(initial);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => setText(initial), [initial]);

  const select = (start: number | null, end: number | null) => {
    if (start === null || end === null || !area.current) return;
    area.current.focus();
    area.current.setSelectionRange(start, end);
  };

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      const position = /position (\d+)/.exec(String(error));
      const start = position ? Number(position[1]) : null;
      setProblem(problemAt(text, `The text is not valid JSON: ${(error as Error).message}`, null, start, start === null ? null : start + 1));
      select(start, start === null ? null : start + 1);
      return;
    }
    setBusy(true);
    try {
      await onSave(parsed);
      setProblem(null);
      setSaved(true);
    } catch (error) {
      if (error instanceof ApiError && error.param?.startsWith('config')) {
        const segments = parsePath(error.param).slice(1);
        const found = segments.length > 0 ? locate(text, segments) : null;
        setProblem(problemAt(text, error.message, error.param, found?.start ?? null, found?.end ?? null));
        select(found?.start ?? null, found?.end ?? null);
      } else {
        setProblem({ message: describeError(error), path: error instanceof ApiError ? error.param : null, line: null, context: null });
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={save} class="editor">
      <label for="config-text">{label}</label>
      <textarea
        id="config-text"
        ref={area}
        spellcheck={false}
        rows={Math.min(30, Math.max(10, text.split('\n').length + 1))}
        value={text}
        readOnly={disabled}
        aria-invalid={problem ? 'true' : 'false'}
        aria-describedby={problem ? 'config-problem' : undefined}
        onInput={(event) => {
          setText((event.target as HTMLTextAreaElement).value);
          setSaved(false);
        }}
      />
      {problem && (
        <div id="config-problem" class="error" role="alert" data-testid="config-problem">
          <p>
            {problem.path && <>At <code data-testid="problem-path">{problem.path}</code>{problem.line !== null && <> (line {problem.line})</>}: </>}
            {problem.message}
          </p>
          {problem.context && <pre class="problem-line"><span>{problem.context[0]}</span><mark>{problem.context[1]}</mark><span>{problem.context[2]}</span></pre>}
        </div>
      )}
      {saved && <p class="ok" role="status">Saved.</p>}
      {!disabled && <button type="submit" disabled={busy}>{busy ? 'Saving…' : saveLabel}</button>}
    </form>
  );
}
