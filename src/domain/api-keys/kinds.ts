/** The three kinds of API key and the scope resource that governs each. */
export type KeyKind = 'organisation-service' | 'workspace-service' | 'workspace-user';

export const KEY_KINDS: ReadonlyArray<{ kind: KeyKind; type: 'organisation' | 'workspace'; subType: 'service' | 'user'; resource: string }> = [
  { kind: 'organisation-service', type: 'organisation', subType: 'service', resource: 'organisation_service_api_keys' },
  { kind: 'workspace-service', type: 'workspace', subType: 'service', resource: 'workspace_service_api_keys' },
  { kind: 'workspace-user', type: 'workspace', subType: 'user', resource: 'workspace_user_api_keys' },
];

export function keyKind(type: string, subType: string): (typeof KEY_KINDS)[number] | undefined {
  return KEY_KINDS.find((kind) => kind.type === type && kind.subType === subType);
}
