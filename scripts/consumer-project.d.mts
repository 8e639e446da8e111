export const PACKAGE: string;
export function runtimeEntries(lockfile: string): Record<string, { version?: string; dev?: boolean }>;
export function writeConsumerProject(
  dir: string,
  spec: string,
  options: { lockfile: string; resolved?: string; name?: string },
): void;
