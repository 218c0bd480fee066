/**
 * What the organisation use cases take, with the admin API's field names (the transport's schema is checked
 * against this type at compile time, in src/http/admin/organisation/schemas.ts).
 */
import type { JwtOrganisationSettings } from '../../auth/jwt-resolver.ts';

export interface UpdateOrganisationInput {
  name?: string;
  /** `jwt: null` removes the JWT settings; an absent `jwt` keeps them */
  settings?: { jwt?: JwtOrganisationSettings | null };
}
