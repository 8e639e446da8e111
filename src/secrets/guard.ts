/**
 * The one output guard (issues 32 and 34): every stream vapc writes (stdout, stderr) and every
 * Markdown file (the GitHub step summary, `vapc diff --format markdown`) passes it, whatever the
 * command. Text from a server, a spec, a config or baseline file or a report artefact is data,
 * never control, and holds no secret:
 *
 * - redacted after rendering: every secret the run knows, in any of its forms (raw, escaped,
 *   escape by escape, base64, hex) and every piece of a credential (`Secrets.scrub`); the
 *   environment's secrets are known by name and by the shape of their value (`environmentSecrets`);
 * - one line per message (`line`): a message's own line breaks are escaped, so it cannot start a
 *   second line;
 * - control characters escaped (`block`, `line`; the console, whose colours are its own, escapes
 *   the data it quotes where it records it, and here only guards commands);
 * - no workflow command of another's making: `::` at a line's start, after any blanks (Unicode
 *   blanks too, which GitHub's runner trims), controls or invisible characters, is marked `[::]`;
 * - in Markdown, bare URLs outside code are broken (`https&#58;//`), so no link of a server's making
 *   renders in a step summary;
 * - in SARIF message texts, square brackets are escaped (`sarifText`), so `[text](https://...)`
 *   stays text (SARIF 2.1.0 §3.11.6 would make it an embedded link).
 *
 * vapc's own workflow commands (annotations) are written on a trusted path: redacted, not guarded.
 */
import { breakAutolinks, neutralizeCommands, printable } from '../results/printable.js';
import { entropyBits, isSecretName, Secrets } from './index.js';

/** Well-known shapes of credentials, recognised by their value whatever the variable is called. */
const CREDENTIAL_SHAPES = [
  /^(?:AKIA|ASIA)[A-Z0-9]{16}$/, // AWS access key id
  /^gh[pousr]_[A-Za-z0-9]{30,}$/, // GitHub tokens
  /^github_pat_\w{30,}$/,
  /^glpat-[\w-]{20,}$/, // GitLab
  /^xox[abprs]-[\w-]{10,}$/, // Slack
  /^(?:sk|rk|pk)_(?:live|test)_\w{10,}$/, // Stripe
  /^sk-[\w-]{16,}$/, // OpenAI-style keys
  /^AIza[\w-]{35}$/, // Google API key
  /^eyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]*$/, // JWT
  /^npm_[A-Za-z0-9]{30,}$/,
];

/** A URL with a password in it (`postgres://user:secret@host/db`): the password and the whole value are secret. */
const URL_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:([^@\s/]+)@/i;

/**
 * True when a value of the environment looks like a credential by itself: a known token shape, a
 * URL carrying a password, or one opaque token of 20 to 512 characters mixing letters and digits
 * with at least 80 bits of entropy. Paths (starting with `/`, `.` or `~`) and git object ids (40 or
 * 64 hex digits, GITHUB_SHA) are not.
 */
export function looksLikeCredential(value: string): boolean {
  const v = value.trim();
  if (CREDENTIAL_SHAPES.some((shape) => shape.test(v)) || URL_PASSWORD.test(v)) return true;
  if (v.length < 20 || v.length > 512 || /^[/.~]/.test(v) || /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i.test(v)) return false;
  return /^[A-Za-z0-9+/=_\-.~]+$/.test(v) && /[0-9]/.test(v) && /[A-Za-z]/.test(v) && entropyBits(v) >= 80;
}

/**
 * The secrets of the environment: vapc's credentials (VAPC_API_KEY, VAPC_USER_ID), the value of
 * every variable whose name says it is secret (`*_TOKEN`, `*_KEY`, `*_SECRET`, `*_PASSWORD`, ...),
 * and every value that looks like a credential whatever its name (`looksLikeCredential`; of a URL
 * with a password, the password too).
 */
export function environmentSecrets(env: Readonly<Record<string, string | undefined>>): Secrets {
  const secrets = new Secrets({
    apiKeys: env['VAPC_API_KEY'] ? [env['VAPC_API_KEY']] : [],
    userIds: env['VAPC_USER_ID'] ? [env['VAPC_USER_ID']] : [],
  });
  for (const [name, value] of Object.entries(env)) {
    if (!value) continue;
    if (isSecretName(name) || looksLikeCredential(value)) secrets.addEnvironmentValue(value);
    const password = URL_PASSWORD.exec(value.trim())?.[1];
    if (password !== undefined) secrets.addEnvironmentValue(decodeURIComponentSafe(password));
  }
  return secrets;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Markdown outside code: fenced blocks (``` or ~~~) and inline code spans are left as they are. */
function outsideCode(markdown: string, edit: (text: string) => string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence !== undefined) {
        if (opener !== undefined && opener[0] === fence[0] && opener.length >= fence.length) fence = undefined;
        return line;
      }
      if (opener !== undefined) {
        fence = opener;
        return line;
      }
      // Inline code: a run of backticks up to the next run of the same length; a backslash-escaped
      // backtick (mdCell writes \`) is text, not the start of a code span.
      return line.replace(/(`+)([\s\S]*?)\1(?!`)|((?:\\`|[^`])+)/g, (m, _ticks, _code, text: string | undefined) =>
        text === undefined ? m : edit(text),
      );
    })
    .join('\n');
}

/** Escapes what SARIF message text would read as an embedded link: square brackets (and a backslash before one). */
export function sarifText(text: string): string {
  return text.replace(/\\(?=[[\]])/g, '\\\\').replace(/[[\]]/g, '\\$&');
}

/** The guard of one command's output, with the secrets it keeps out. */
export class OutputGuard {
  constructor(readonly secrets: Secrets) {}

  /** One message as one line: redacted, every control character (line breaks included) escaped, ending in a newline. */
  line(text: string): string {
    return `${neutralizeCommands(printable(this.secrets.scrub(text.replace(/\r?\n$/, ''))))}\n`;
  }

  /** Text vapc wrote around data (a summary, a diff): redacted, each line made printable, no forged command. */
  block(text: string): string {
    const lines = this.secrets
      .scrub(text)
      .split('\n')
      .map((l) => printable(l));
    return neutralizeCommands(lines.join('\n'));
  }

  /** A stream whose data was made printable where it was recorded (the console's colours are its own): redacted, no forged command. */
  stream(text: string): string {
    return neutralizeCommands(this.secrets.scrub(text));
  }

  /** A Markdown file or text: as `block`, and no bare URL outside code renders as a link. */
  markdown(text: string): string {
    return outsideCode(this.block(text), breakAutolinks);
  }

  /** JSON text: redacted only (JSON.stringify escapes controls; its lines start with blanks and `"`). */
  json(text: string): string {
    return this.secrets.scrub(text);
  }
}

/** The guard of a command that knows no run: the environment's secrets. */
export const environmentGuard = (env: Readonly<Record<string, string | undefined>>): OutputGuard =>
  new OutputGuard(environmentSecrets(env));
