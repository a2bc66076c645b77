import { fail } from '../core/errors.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkEmail(email: string): void {
  if (email.length > 254 || !EMAIL.test(email.trim())) throw fail('email_invalid', email);
}

export function checkPassword(password: string): void {
  if (password.length === 0) throw fail('field_empty', 'password');
  if (password.length > 1024) throw fail('password_too_long');
}
