/**
 * A list of one admin resource with pages, an optional create form (a structured one, or the POST body as JSON
 * with an example), an edit form under a row, and delete: what providers, integrations and limit policies share.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, get, type ListPage } from '../api.ts';
import { type Permission } from '../session.ts';
import { Async, Empty, ErrorNote, HiddenActions, Pager, useLoad } from '../ui.tsx';
import { ConfigEditor } from './config-editor.tsx';

export interface Column<T> {
  label: string;
  cell(row: T): ComponentChildren;
}

export interface ResourceProps<T> {
  title: string;
  /** the list path under /v1 */
  path: string;
  query: Record<string, string>;
  columns: Array<Column<T>>;
  idOf(row: T): string;
  nameOf(row: T): string;
  create?: { permission: Permission; label: string; example?: unknown; form?: (done: () => void) => ComponentChildren };
  remove?: { permission: Permission; label: string };
  /** an edit form under the row */
  edit?: { permission: Permission; form: (row: T, done: () => void) => ComponentChildren };
  /** more under a row (a policy's consumption) */
  expand?: (row: T) => ComponentChildren;
  empty: string;
}

const PAGE_SIZE = 20;

export function ResourceSection<T>(props: ResourceProps<T>) {
  const [page, setPage] = useState(0);
  const [creating, setCreating] = useState(false);
  const [open, setOpen] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [actionError, setActionError] = useState<unknown>(undefined);
  const list = useLoad(() => get<ListPage<T>>(props.path, { ...props.query, current_page: page, page_size: PAGE_SIZE }), [props.path, JSON.stringify(props.query), page]);
  const remove = async (row: T) => {
    if (!confirm(`${props.remove!.label} "${props.nameOf(row)}"?`)) return;
    setActionError(undefined);
    try {
      await api('DELETE', `${props.path}/${encodeURIComponent(props.idOf(row))}`, { query: props.query });
      list.reload();
    } catch (error) {
      setActionError(error);
    }
  };
  const done = () => {
    setCreating(false);
    list.reload();
  };
  const hidden: Array<[string, Permission]> = [];
  if (props.create) hidden.push([props.create.label, props.create.permission]);
  if (props.remove) hidden.push([props.remove.label, props.remove.permission]);
  if (props.edit) hidden.push(['Edit', props.edit.permission]);
  const slug = props.title.toLowerCase().replace(/\W+/g, '-');
  return (
    <section aria-labelledby={`${slug}-title`}>
      <h2 id={`${slug}-title`}>{props.title}</h2>
      <HiddenActions items={hidden} />
      {props.create?.permission.ok && !creating && <button type="button" onClick={() => setCreating(true)}>{props.create.label}</button>}
      {props.create?.permission.ok && creating && (
        <div class="card">
          {props.create.form ? props.create.form(done) : (
            <ConfigEditor initial={JSON.stringify(props.create.example ?? {}, null, 2)} label={`Body of POST /v1${props.path} (JSON)`} saveLabel={props.create.label}
              onSave={async (body) => {
                await api('POST', props.path, { body: { ...(body as object), ...props.query } });
                done();
              }} />
          )}
          <button type="button" class="secondary" onClick={() => setCreating(false)}>Cancel</button>
        </div>
      )}
      {actionError !== undefined && <ErrorNote error={actionError} />}
      <Async state={list} what={props.title.toLowerCase()}>
        {(data) => data.total === 0 ? <Empty>{props.empty}</Empty> : (
          <>
            <div class="table-wrap">
              <table>
                <thead><tr>{props.columns.map((column) => <th key={column.label} scope="col">{column.label}</th>)}<th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
                <tbody>
                  {data.data.map((row) => {
                    const id = props.idOf(row);
                    return (
                      <>
                        <tr key={id}>
                          {props.columns.map((column) => <td key={column.label}>{column.cell(row)}</td>)}
                          <td class="actions">
                            {props.expand && <button type="button" class="secondary" aria-expanded={open === id} onClick={() => setOpen(open === id ? null : id)}>{open === id ? 'Hide usage' : 'Usage'}</button>}
                            {props.edit?.permission.ok && (
                              <button type="button" class="secondary" aria-expanded={editing === id} aria-label={editing === id ? `Close the edit form of ${props.nameOf(row)}` : `Edit ${props.nameOf(row)}`} onClick={() => setEditing(editing === id ? null : id)}>
                                {editing === id ? 'Close' : 'Edit'}
                              </button>
                            )}
                            {props.remove?.permission.ok && <button type="button" class="danger" onClick={() => remove(row)}>{props.remove.label}</button>}
                          </td>
                        </tr>
                        {open === id && props.expand && <tr key={`${id}-more`}><td colSpan={props.columns.length + 1}>{props.expand(row)}</td></tr>}
                        {editing === id && props.edit && (
                          <tr key={`${id}-edit`}>
                            <td colSpan={props.columns.length + 1}>
                              <div class="card edit-card">{props.edit.form(row, () => {
                                setEditing(null);
                                list.reload();
                              })}</div>
                            </td>
                          </tr>
                        )}
                      </>
                    );
                  })}
                </tbody>
              </table>
            </div>
            <Pager page={page} size={PAGE_SIZE} total={data.total} onPage={setPage} />
          </>
        )}
      </Async>
    </section>
  );
}
