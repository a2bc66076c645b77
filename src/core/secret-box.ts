import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Seals secrets for storage at rest: AES-256-GCM, a random 12-byte IV per value, stored as
 * base64 of iv | tag | ciphertext. The key is read on first use, so processes that never
 * touch secrets make no key file.
 */
export class SecretBox {
  private key: Buffer | null = null;

  constructor(private readonly secretKey: () => Buffer) {}

  private get cipherKey(): Buffer {
    this.key ??= this.secretKey();
    return this.key;
  }

  seal(text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.cipherKey, iv);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  open(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.cipherKey, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
