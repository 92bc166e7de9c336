/** Field rules shared by signup, the setup admin step and the profile. */
import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';

export const usernameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9._-]{2,31}$/);
export const emailSchema = z.string().trim().toLowerCase().pipe(z.email().max(254));
/** Length counts characters as people see them (code points), not UTF-16 units. */
export const passwordSchema = z
  .string()
  .max(PASSWORD_MAX_LENGTH)
  .check((context) => {
    if ([...context.value].length < PASSWORD_MIN_LENGTH) {
      context.issues.push({ code: 'too_small', origin: 'string', minimum: PASSWORD_MIN_LENGTH, inclusive: true, input: context.value });
    }
  });
export const displayNameSchema = z.string().trim().min(1).max(100);
export const localeSchema = z.enum(['de', 'en']);
