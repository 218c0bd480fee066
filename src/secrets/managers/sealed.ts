/** Our own `sealed` type: the value was sealed into the row with auth_config, and was opened with it. */
import type { RawSecret, SealedValueAuth } from './types.ts';

export function sealedSecret(auth: SealedValueAuth): RawSecret {
  return auth.secret_value;
}
