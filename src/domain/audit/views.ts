/** An audit record as the admin API shows it (reference §3.23). */
import type { AuditLogRow } from '../../storage/repositories/audit-logs.ts';

export function auditLogView(row: AuditLogRow) {
  return {
    id: row.id,
    timestamp: row.timestamp.toISOString(),
    method: row.method,
    uri: row.uri,
    request_id: row.requestId,
    request_body: row.requestBody,
    query_params: row.queryParams,
    request_headers: row.requestHeaders,
    user_id: row.userId,
    api_key_id: row.apiKeyId,
    user_type: row.userType,
    organisation_id: row.organisationId,
    workspace_id: row.workspaceId,
    response_status_code: row.responseStatusCode,
    outcome: row.outcome,
    resource_type: row.resourceType,
    resource_id: row.resourceId,
    action: row.action,
    client_ip: row.clientIp,
    country: null,
  };
}
