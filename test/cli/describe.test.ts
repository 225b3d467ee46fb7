import { describe, expect, it } from 'vitest';
import { svc } from '../helpers/cli.js';

describe('svc describe', () => {
  it('explains a family on a terminal: facts, then one row per field', async () => {
    const r = await svc(['describe', 'accounts'], { tty: true, columns: 200, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Resource:\s+accounts \(Accounts\)$/m);
    expect(r.stdout).toMatch(/^Write permission:\s+writable accounts$/m);
    expect(r.stdout).toMatch(/^Rule:\s+customernum only when type in \(0, 1, 3, 5\)$/m);
    expect(r.stdout).toMatch(/^NAME\s+TYPE\s+NULL\s+DEFAULT\s+REF\s+WRITE\s+REQ\s+FILTER\s+CONSTRAINTS\s+NOTE$/m);
    expect(r.stdout).toMatch(/^type\s+int16\s+0\s+yes\s+yes\s+0 PROSPECT, 1 CUSTOMER, 2 SUPPLIER/m);
    expect(r.stdout).toMatch(/^currency\s+string\s+yes\s+yes\s+yes\s+pattern \^\[A-Z\]\{3\}\$/m);
    expect(r.stdout).toMatch(/^contact\s+int32\s+yes\s+null\s+contacts\s+yes/m);
  });

  it('gives the family as JSON data in a pipe', async () => {
    const r = await svc(['describe', 'actionsteps']);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout) as { name: string; verbs: string[]; fields: { name: string; minimum?: number }[] };
    expect(data.name).toBe('actionsteps');
    expect(data.verbs).toContain('delete');
    expect(data.fields.find((f) => f.name === 'effort')?.minimum).toBe(0);
  });

  it('explains one field, and follows a reference path', async () => {
    const r = await svc(['describe', 'accounts.type'], { tty: true, env: { NO_COLOR: '1' } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Field:\s+accounts\.type$/m);
    expect(r.stdout).toMatch(/^Value:\s+1 CUSTOMER$/m);
    expect(r.stdout).toMatch(/^Value:\s+5 EMPLOYEE$/m);
    const city = await svc(['describe', 'accounts.contact.city', '-o', 'json']);
    expect(JSON.parse(city.stdout)).toMatchObject({ resource: 'contacts', name: 'city', type: 'string' });
    const viaGroup = await svc(['contacts', 'describe', 'country', '-o', 'json']);
    expect(JSON.parse(viaGroup.stdout)).toMatchObject({ name: 'country', pattern: '^([A-Z]{2})?$' });
  });

  it('writes the field rows as CSV', async () => {
    const r = await svc(['describe', 'addresses', '-o', 'csv']);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('name,type,null,default,ref,write,req,filter,constraints,note');
    expect(lines).toContain('account,int32,,,accounts,yes,yes,yes,,the account this address belongs to');
  });

  it('rejects an unknown resource with exit 2 and a did-you-mean, nothing on stdout', async () => {
    const r = await svc(['describe', 'acounts']);
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "svc: unknown resource 'acounts'; did you mean 'accounts'? (run 'svc resources' for the list)\n",
    });
  });

  it('rejects an unknown field with exit 2 and a did-you-mean', async () => {
    const r = await svc(['describe', 'accounts.lastnme'], { tty: true });
    expect(r).toEqual({
      code: 2,
      stdout: '',
      stderr: "svc: unknown field 'lastnme' on accounts; did you mean 'lastname'? (run 'svc describe accounts')\n",
    });
    const deep = await svc(['describe', 'accounts.lastname.city']);
    expect(deep.code).toBe(2);
    expect(deep.stderr).toBe("svc: field 'lastname' on accounts references no resource, so 'city' cannot follow it\n");
  });
});
