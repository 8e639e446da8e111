/**
 * The guard on what `vapc diff` and `vapc lint` print: text from a spec (names, paths,
 * descriptions, defaults, versions) is untrusted exactly like a server's (issue 20). Every line
 * is made printable (no raw control character, ANSI/OSC sequence or CR), no line vapc did not
 * author can start a workflow command, and the credentials and tokens in the environment are
 * replaced wherever they appear. JSON is only redacted: JSON.stringify already escapes controls.
 */
import { isSecretName, Secrets } from '../secrets/index.js';
import { neutralizeCommands, printable } from '../results/printable.js';

/** The secrets of the environment: vapc's credentials and any *_TOKEN / *_KEY / *_SECRET / *_PASSWORD value. */
export function environmentSecrets(env: Readonly<Record<string, string | undefined>>): Secrets {
  const secrets = new Secrets({
    apiKeys: env['VAPC_API_KEY'] ? [env['VAPC_API_KEY']] : [],
    userIds: env['VAPC_USER_ID'] ? [env['VAPC_USER_ID']] : [],
  });
  for (const [name, value] of Object.entries(env)) {
    if (value && isSecretName(name)) secrets.learn(value);
  }
  return secrets;
}

/** Text for stdout/stderr or a Markdown file: redacted, each line printable, no workflow command. */
export function guardText(text: string, secrets: Secrets): string {
  const lines = secrets
    .text(text)
    .split('\n')
    .map((line) => printable(line));
  return neutralizeCommands(lines.join('\n'));
}

/** JSON text: redacted only (its strings are escaped by JSON.stringify; its lines start with blanks and `"`). */
export function guardJson(text: string, secrets: Secrets): string {
  return secrets.text(text);
}
