import { badRequest } from '../core/errors.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function checkEmail(email: string): void {
  if (email.length > 254 || !EMAIL.test(email.trim()))
    throw badRequest(`email "${email}" is not a valid e-mail address`);
}

export function checkPassword(password: string): void {
  if (password.length === 0) throw badRequest('password must not be empty');
  if (password.length > 1024) throw badRequest('password must be at most 1024 characters');
}
