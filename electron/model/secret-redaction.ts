import type { TurnFailure } from '../../shared/protocol/index.js';
import { ModelError, type ModelClient, type ModelStreamEvent } from './types.js';

/**
 * The one place error text is cleaned of credentials before it is stored or
 * sent. Providers quote the key they were given ("Incorrect API key provided:
 * sk-…"), so every known key is cut out, and so is anything shaped like one:
 * `sk-…` keys, bearer tokens and long opaque tokens.
 */

export const REDACTED = '[redacted]';

/** Known keys shorter than this are not searched for (they would mangle ordinary words). */
const MIN_KNOWN_SECRET_CHARS = 8;

const KEY_SHAPED: readonly RegExp[] = [
  // OpenAI / DeepSeek / Anthropic style keys: sk-…, sk-proj-…, sk-ant-…
  /\bsk-[A-Za-z0-9_-]{6,}/g,
  // "Bearer <token>" as echoed from an Authorization header.
  /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  // Google API keys.
  /\bAIza[A-Za-z0-9_-]{20,}/g,
  // GitHub, Slack and similar prefixed tokens.
  /\b(gh[pousr]_|github_pat_|xox[abprs]-)[A-Za-z0-9_-]{10,}/g,
  // Any other long opaque token: 32+ key characters with both letters and digits.
  /(?<![A-Za-z0-9_-])(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}(?![A-Za-z0-9_-])/g,
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `text` with every known secret and every key-shaped string replaced by `[redacted]`. */
export function redactSecrets(text: string, knownSecrets: Iterable<string | null | undefined> = []): string {
  let result = text;
  const secrets = [...knownSecrets]
    .map((secret) => secret?.trim() ?? '')
    .filter((secret) => secret.length >= MIN_KNOWN_SECRET_CHARS)
    // Longest first, so a key that contains another is cut out whole.
    .sort((a, b) => b.length - a.length);
  for (const secret of secrets) result = result.split(secret).join(REDACTED);
  for (const pattern of KEY_SHAPED) {
    result = result.replace(pattern, (match: string, scheme: unknown) => {
      if (typeof scheme === 'string' && /^(bearer|basic|token)$/i.test(scheme)) return `${scheme} ${REDACTED}`;
      // Thread, turn and request ids are UUIDs: long and opaque, but no secret.
      return UUID.test(match) ? match : REDACTED;
    });
  }
  return result;
}

/** A ModelError whose message and details carry no secrets. */
export function redactModelError(error: ModelError, knownSecrets: Iterable<string | null | undefined> = []): ModelError {
  const secrets = [...knownSecrets];
  return error.reworded(redactSecrets(error.message, secrets), error.details === null ? null : redactSecrets(error.details, secrets));
}

/** A TurnFailure whose message and details carry no secrets. */
export function redactTurnError(error: TurnFailure, knownSecrets: Iterable<string | null | undefined> = []): TurnFailure {
  const secrets = [...knownSecrets];
  return {
    ...error,
    message: redactSecrets(error.message, secrets),
    additionalDetails: error.additionalDetails == null ? error.additionalDetails : redactSecrets(error.additionalDetails, secrets),
  };
}

/**
 * The model-error boundary of a client: every error it throws, and every
 * retry reason it reports, has `knownSecrets` (its own key) and key-shaped
 * text removed.
 */
export function withRedactedErrors(client: ModelClient, knownSecrets: readonly (string | null)[]): ModelClient {
  const clean = (error: unknown): unknown => (error instanceof ModelError ? redactModelError(error, knownSecrets) : error);
  return {
    async *stream(request): AsyncGenerator<ModelStreamEvent> {
      try {
        for await (const event of client.stream(request)) {
          // A retry's reason is the failed attempt's error text, shown to every client.
          yield event.type === 'retrying' ? { ...event, reason: redactSecrets(event.reason, knownSecrets) } : event;
        }
      } catch (error) {
        throw clean(error);
      }
    },
    async listModels(signal) {
      try {
        return await client.listModels(signal);
      } catch (error) {
        throw clean(error);
      }
    },
  };
}
