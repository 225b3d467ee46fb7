/** How `svc resources` shows the families: one row each; on a terminal, short labels for verbs, permissions and parents. */
import { families, type Dependency, type PermissionRule } from '../../catalogue/index.js';
import type { RecordsView } from '../../output/view.js';
import { dependencyLabel, permissionLabel } from '../../records/labels.js';
import { serviceVerbs, verbsOf } from '../../records/verbs.js';

/** `svc resources`: every record family with its access, verbs, permissions and parents. */
export function resourcesView(): RecordsView {
  const rows = families.map((f) => ({
    name: f.name,
    title: f.title,
    access: f.access,
    verbs: verbsOf(f),
    read: f.permissions.read,
    write: f.permissions.write,
    dependsOn: f.dependsOn,
  }));
  return {
    kind: 'records',
    columns: [
      { key: 'name' },
      { key: 'access' },
      {
        key: 'verbs',
        text: (v) => {
          const verbs = v as string[];
          return verbs.length === serviceVerbs.length ? 'all' : verbs.join(',');
        },
      },
      { key: 'read', text: (v) => permissionLabel(v as PermissionRule) },
      { key: 'write', text: (v) => permissionLabel(v as PermissionRule | null) },
      { key: 'dependsOn', header: 'parent', text: (v) => dependencyLabel(v as Dependency[]) },
    ],
    rows,
  };
}
