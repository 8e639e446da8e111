export const PAGES: string[];
export function measure(): Record<string, string>;
export function stated(text: string): Array<[string, string]>;
export function rewrite(text: string, counts: Record<string, string>): string;
