/**
 * The work side of a tenant: projects with tasks, tickets (each for an
 * account or a project, never both), action steps (for a task, a ticket or an
 * account, at most one), appointments, notes, and activity records with
 * comments.
 */
import { APPOINTMENT_NAMES, CITIES, DESCRIPTIONS, PROJECT_NAMES, TASK_NAMES, TICKET_SUBJECTS } from './names.js';
import { DAY, docnum, inserter, partiesOf, someUser, stamps, type Tenant } from './tenant.js';

/** IDs made by seedWork, for the seeders that follow. */
export interface WorkIds {
  readonly projects: number[];
  readonly tasks: number[];
  readonly tickets: number[];
}

/** Seeds projects, tasks and tickets: `count` tickets, a quarter as many projects. */
export function seedWork(t: Tenant, count: number): WorkIds {
  const { random } = t;
  const project = inserter(t, 'projects', ['name', 'projectnum', 'account', 'status', 'description', 'assigneduser', 'creator', 'creationdate', 'lastmodified']);
  const task = inserter(t, 'tasks', [
    'name', 'tasknum', 'project', 'ticket', 'datefrom', 'duedate', 'status', 'priority', 'projectedeffort', 'description',
    'owneruser', 'assigneduser', 'creator', 'creationdate', 'lastmodified',
  ]);
  const ticket = inserter(t, 'tickets', ['name', 'ticketnum', 'account', 'project', 'date', 'duedate', 'status', 'priority', 'description', 'assigneduser', 'creator', 'creationdate', 'lastmodified']);
  const customers = partiesOf(t, [1, 3]);
  const ids: WorkIds = { projects: [], tasks: [], tickets: [] };
  const projects = Math.max(2, Math.ceil(count / 4));
  for (let i = 0; i < projects; i++) {
    const [created, modified] = stamps(t, 400);
    const name = `${PROJECT_NAMES[i % PROJECT_NAMES.length] ?? 'Project'}${i >= PROJECT_NAMES.length ? ` ${Math.floor(i / PROJECT_NAMES.length) + 1}` : ''}`;
    const account = random.chance(0.7) ? random.pick(customers).account : null;
    ids.projects.push(project([name, docnum('P', i + 1), account, random.pick([1, 3, 5, 5, 9]), i % 2 === 0 ? random.pick(DESCRIPTIONS) : '', someUser(t), someUser(t), created, modified]));
  }
  const addTask = (projectId: number | null, ticketId: number | null): void => {
    const [created, modified] = stamps(t, 200);
    const due = random.chance(0.7) ? created + random.int(3, 60) * DAY : null;
    const mine = random.chance(0.1) ? someUser(t) : null; // a private task
    ids.tasks.push(
      task([
        random.pick(TASK_NAMES), docnum('T', ids.tasks.length + 1), projectId, ticketId, due === null ? null : created, due,
        random.pick([0, 2, 4, 9, 9]), random.int(0, 4), random.int(0, 16) * 30, '', mine, mine ?? someUser(t), someUser(t), created, modified,
      ]),
    );
  };
  for (const p of ids.projects) for (let k = random.int(1, 4); k > 0; k--) addTask(p, null);
  for (let i = 0; i < count; i++) {
    const [created, modified] = stamps(t, 300);
    const forProject = random.chance(0.25);
    const id = ticket([
      random.pick(TICKET_SUBJECTS), docnum('TK', i + 1), forProject ? null : random.pick(customers).account, forProject ? random.pick(ids.projects) : null,
      created, random.chance(0.5) ? created + random.int(1, 14) * DAY : null, random.pick([0, 2, 4, 6, 9, 9, 9]), random.int(0, 4),
      i % 3 === 0 ? 'Customer reports:\n"The machine stopped after descaling; display shows E17."\nTried: restart, no effect.' : '',
      someUser(t), someUser(t), created, modified,
    ]);
    ids.tickets.push(id);
    if (random.chance(0.3)) addTask(null, id);
  }
  return ids;
}

/** Seeds action steps, each for exactly one of a task, a ticket or an account. */
export function seedActionsteps(t: Tenant, work: WorkIds, count: number): void {
  const { random } = t;
  const step = inserter(t, 'actionsteps', ['name', 'actionnum', 'task', 'ticket', 'account', 'date', 'duedate', 'status', 'effort', 'description', 'assigneduser', 'creator', 'creationdate', 'lastmodified']);
  for (let i = 0; i < count; i++) {
    const target = i % 3;
    const [created, modified] = stamps(t, 200);
    step([
      random.pick(['Phone call', 'E-mail sent', 'On-site repair', 'Quote sent', 'Follow-up']), docnum('A', i + 1),
      target === 0 ? random.pick(work.tasks) : null, target === 1 ? random.pick(work.tickets) : null,
      target === 2 ? random.pick(t.parties).account : null, created, random.chance(0.4) ? created + 7 * DAY : null,
      random.pick([0, 1, 1, 3]), random.int(0, 8) * 15, random.chance(0.3) ? 'Spoke with the office; they will call back,\nprobably on Monday.' : '',
      someUser(t), someUser(t), created, modified,
    ]);
  }
}

/** Seeds appointments around now (past and future), some recurring. */
export function seedAppointments(t: Tenant, count: number): void {
  const { random } = t;
  const appointment = inserter(t, 'appointments', [
    'name', 'location', 'color', 'datefrom', 'dateto', 'recurrence', 'interval', 'maxoccurrences', 'description',
    'owneruser', 'assigneduser', 'creator', 'creationdate', 'lastmodified',
  ]);
  for (let i = 0; i < count; i++) {
    const start = Math.floor((t.now + random.int(-60, 60) * DAY) / 900) * 900;
    const end = start + random.pick([0, 1800, 3600, 7200, 86400]);
    const recurring = random.chance(0.15);
    const p = random.pick(t.parties);
    appointment([
      `${random.pick(APPOINTMENT_NAMES)}: ${p.name}`, random.chance(0.7) ? `${p.city.name}, ${p.address.split('\n')[0] ?? ''}` : random.pick(CITIES).name,
      random.pick(['', 'F00', '0A0', '00F', 'FFA500', '3366CC']), start, end, recurring ? random.pick([2, 3]) : null, 1,
      recurring ? random.int(0, 12) : 0, i % 4 === 0 ? 'Agenda:\n1. Status; 2. Open tickets\n3. "Next steps"' : '',
      random.chance(0.1) ? someUser(t) : null, someUser(t), someUser(t), start - 20 * DAY, start - 20 * DAY,
    ]);
  }
}

/** Seeds notes, activity records on accounts and tickets, and comments on some records. */
export function seedNotes(t: Tenant, work: WorkIds, count: number): void {
  const { random } = t;
  const note = inserter(t, 'notes', ['name', 'status', 'contenttype', 'text', 'description', 'owneruser', 'assigneduser', 'creator', 'creationdate', 'lastmodified']);
  const record = inserter(t, 'records', ['entity', 'index', 'flag', 'date', 'sender', 'location', 'text', 'meta', 'assigneduser', 'creator', 'creationdate', 'lastmodified']);
  const comment = inserter(t, 'comments', ['record', 'date', 'sender', 'text', 'meta', 'creator', 'creationdate', 'lastmodified']);
  for (let i = 0; i < count; i++) {
    const [created, modified] = stamps(t, 500);
    note([
      random.pick(['Meeting minutes', 'Price calculation', 'Checklist: installation', 'Ideas, "brainstorming"', 'Übergabe an Kollegin']),
      random.pick([0, 1, 4, 4]), 'text/plain', `Notes from ${new Date(created * 1000).toISOString().slice(0, 10)}:\n- item one; done\n- item "two", open`,
      '', random.chance(0.2) ? someUser(t) : null, someUser(t), someUser(t), created, modified,
    ]);
  }
  for (let i = 0; i < count * 2; i++) {
    const [created] = stamps(t, 300);
    const onTicket = i % 3 === 0 && work.tickets.length > 0;
    const creator = someUser(t);
    const assignee = random.chance(0.3) ? t.users.find((u) => u !== creator) ?? null : null;
    const id = record([
      onTicket ? 'tickets' : 'accounts', onTicket ? random.pick(work.tickets) : random.pick(t.parties).account, 0, created,
      random.pick(['Dana Demo', 'Stella Staff', '']), random.chance(0.3) ? random.pick(CITIES).name : '',
      random.pick(['Called, no answer.', 'Sent brochure "Barista Pro", price list attached.', 'Visited; showroom, 2nd floor.\nOrder expected next week.']),
      random.chance(0.2) ? JSON.stringify({ channel: 'phone', duration: random.int(1, 40) }) : null, assignee, creator, created, created,
    ]);
    if (random.chance(0.3)) {
      const when = Math.min(created + random.int(1, 48) * 3600, t.now);
      comment([id, when, 'Stella Staff', random.pick(['Thanks, noted.', 'I will follow up; see ticket.', 'Agreed ✔']), null, someUser(t), when, when]);
    }
  }
}
