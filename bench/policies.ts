/**
 * The bench's `gateway+policies` target: the same gateway process and API key as the `gateway` target, with one
 * rate limits policy (requests per minute) and one usage limits policy (a token budget) that apply to the key, both
 * with limits high enough never to refuse. They exist only while that target runs (enable() before, disable()
 * after: DELETE archives them, and the gateway stops counting them at once), so the `gateway` runs of the same bench
 * have no policy at all and the two are compared within one run.
 *
 * verify() proves, before anything is measured, that both policies really apply to the bench's requests: each is
 * set, for a moment, to a limit one request reaches, and must refuse the next request (429 naming it).
 */

/** far above anything a bench run sends (requests per minute; tokens, within what a policy can store: < 10^12) */
const RATE_LIMIT_RPM = 1e9;
const TOKEN_BUDGET = 1e11;

interface Answer {
  status: number;
  text: string;
}

export interface BenchPolicies {
  /** the bench key's id, which both policies name */
  keyId: string;
  enable(): Promise<void>;
  disable(): Promise<void>;
  /** `send` makes one bench request through the gateway */
  verify(send: () => Promise<Answer>): Promise<void>;
}

export async function benchPolicies(gatewayUrl: string, adminKey: string, fail: (why: string) => Error): Promise<BenchPolicies> {
  async function admin(method: string, path: string, body?: unknown): Promise<any> {
    const response = await fetch(`${gatewayUrl}/v1${path}`, {
      method,
      headers: { 'x-gateway-api-key': adminKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    if (response.status !== 200) throw fail(`admin ${method} ${path} answered ${response.status}: ${text.slice(0, 400)}`);
    return text ? JSON.parse(text) : undefined;
  }

  // the gateway's bootstrap key (GATEWAY_ADMIN_API_KEY) is the key every gateway target sends
  const keys = (await admin('GET', '/api-keys?page_size=100')) as { data: Array<{ id: string; name: string }> };
  const bootstrap = keys.data.filter((key) => key.name === 'Bootstrap admin key');
  if (bootstrap.length !== 1) throw fail(`expected one bootstrap admin key, found ${bootstrap.length}`);
  const keyId = bootstrap[0]!.id;
  const onKey = { conditions: [{ key: 'api_key', value: keyId }], group_by: [{ key: 'api_key' }] };
  let ids: { rate: string; usage: string } | undefined;

  async function enable(limits = { rpm: RATE_LIMIT_RPM, tokens: TOKEN_BUDGET }): Promise<void> {
    if (ids) throw fail('the bench policies are already enabled');
    const rate = await admin('POST', '/policies/rate-limits', { name: 'bench rate limit', ...onKey, type: 'requests', unit: 'rpm', value: limits.rpm });
    const usage = await admin('POST', '/policies/usage-limits', { name: 'bench budget', ...onKey, type: 'tokens', credit_limit: limits.tokens });
    ids = { rate: rate.id, usage: usage.id };
  }

  async function disable(): Promise<void> {
    if (!ids) return;
    const { rate, usage } = ids;
    ids = undefined;
    await admin('DELETE', `/policies/rate-limits/${rate}`);
    await admin('DELETE', `/policies/usage-limits/${usage}`);
  }

  async function expectRefusal(send: () => Promise<Answer>, names: string): Promise<void> {
    const refused = await send();
    if (refused.status !== 429 || !refused.text.includes(names)) {
      throw fail(`the ${names} policy does not apply to the bench key: expected a 429 naming it, got ${refused.status} ${refused.text.slice(0, 300)}`);
    }
  }

  async function expectPass(send: () => Promise<Answer>, why: string): Promise<void> {
    const answer = await send();
    if (answer.status !== 200) throw fail(`${why}: got ${answer.status} ${answer.text.slice(0, 300)}`);
  }

  return {
    keyId,
    enable: () => enable(),
    disable,
    async verify(send) {
      await enable({ rpm: 1, tokens: TOKEN_BUDGET });
      const { rate, usage } = ids!;
      try {
        await expectPass(send, 'the first request under a 1 rpm policy');
        await expectRefusal(send, 'bench rate limit');
        await admin('PUT', `/policies/rate-limits/${rate}`, { value: RATE_LIMIT_RPM });
        await admin('PUT', `/policies/usage-limits/${usage}`, { credit_limit: 1 });
        await expectRefusal(send, 'bench budget');
        await admin('PUT', `/policies/usage-limits/${usage}`, { credit_limit: TOKEN_BUDGET });
        await expectPass(send, 'a request under the raised limits');
      } finally {
        await disable();
      }
    },
  };
}
