/** camelCase → snake_case (`phoneNumberId` → `phone_number_id`): the one spelling rule the contract's names follow. */
export const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
