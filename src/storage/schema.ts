/**
 * The relational schema (Drizzle). One schema and one SQL dialect serve both PGlite (embedded default) and
 * PostgreSQL. After changing it run `npm run db:generate` to add a migration under src/storage/migrations.
 */
export * from './schema/control-plane.ts';
export * from './schema/routing.ts';
export * from './schema/request-logs.ts';
export * from './schema/providers.ts';
export * from './schema/limits.ts';
export * from './schema/analytics.ts';
export * from './schema/prompts.ts';
export * from './schema/scim.ts';
export * from './schema/mcp.ts';
export * from './schema/files-batches.ts';
