/**
 * The permission probe itself (permission-probe.ts): it must see a prototype
 * whose built-in was overwritten or redefined, not only one that gained a key,
 * and report nothing on a clean process.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestSandbox } from '../helpers/sandbox.js';
import { createPermissionProbe, type PermissionProbe } from './permission-probe.js';
let probe: PermissionProbe;

const s = useTestSandbox();

beforeAll(async () => {
  probe = await createPermissionProbe(s);
});

/** Runs the probe with one property of `proto` replaced by `descriptor`, then puts the original back. */
async function probeWith(proto: object, key: string, descriptor: PropertyDescriptor): Promise<string[]> {
  const original = Object.getOwnPropertyDescriptor(proto, key);
  if (!original) throw new Error(`no built-in '${key}' to replace`);
  Object.defineProperty(proto, key, descriptor);
  try {
    return await probe.run();
  } finally {
    Object.defineProperty(proto, key, original);
  }
}

describe('the permission probe', () => {
  it('reports nothing on a clean process', async () => {
    expect(await probe.run()).toEqual([]);
  });

  it('sees an overwritten or redefined built-in on Object, Array and Function.prototype', async () => {
    const toString = Object.prototype.toString;
    const wrapped = function (this: unknown): string {
      return toString.call(this);
    };
    expect(await probeWith(Object.prototype, 'toString', { value: wrapped, writable: true, enumerable: false, configurable: true })).toEqual([
      "Object.prototype's 'toString' was replaced or redefined",
    ]);
    const includes = Array.prototype.includes;
    expect(await probeWith(Array.prototype, 'includes', { value: includes, writable: true, enumerable: true, configurable: true })).toEqual([
      "Array.prototype's 'includes' was replaced or redefined",
    ]);
    const bind = Function.prototype.bind;
    expect(await probeWith(Function.prototype, 'bind', { get: () => bind, configurable: true })).toEqual([
      "Function.prototype's 'bind' was replaced or redefined",
    ]);
    expect(await probe.run()).toEqual([]);
  });

  it('still sees a key a prototype gained', async () => {
    Object.defineProperty(Object.prototype, 'admin', { value: 1, configurable: true, writable: true, enumerable: false });
    try {
      expect(await probe.run()).toEqual(["Object.prototype gained the key 'admin'", 'a plain object inherits an admin key']);
    } finally {
      delete (Object.prototype as Record<string, unknown>).admin;
    }
  });
});
