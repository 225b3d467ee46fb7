/**
 * `--shard auto/N`: the shard a job array's task exports, K from the index
 * the scheduler gives each task in its environment:
 *   - Kubernetes indexed Job: JOB_COMPLETION_INDEX, 0 to N-1 → K = index + 1;
 *   - Slurm job array: SLURM_ARRAY_TASK_ID, counted from SLURM_ARRAY_TASK_MIN
 *     (so `--array=0-3` and `--array=1-4` both give K = 1..4) → K = id - min + 1;
 *   - AWS Batch array job: AWS_BATCH_JOB_ARRAY_INDEX, 0 to N-1 → K = index + 1.
 * The first of these that is set is used. A missing or unusable index is a
 * usage error (exit 2) naming the variables.
 */
import { UsageError } from '../errors.js';
import { MAX_SHARDS, parseShard, type Shard } from './plan.js';
import { shown } from '../util/shown.js';

/** The variables `--shard auto/N` reads, in the order it looks. */
export const SHARD_INDEX_VARIABLES = ['JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_ID', 'AWS_BATCH_JOB_ARRAY_INDEX'] as const;

const USAGE = `--shard takes K/N or auto/N with 1 <= K <= N <= ${MAX_SHARDS}, e.g. 2/4 or auto/4`;

type Env = Readonly<Record<string, string | undefined>>;

/** A whole number as the variable holds it, or undefined. */
function wholeNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^\s*\d{1,9}\s*$/.test(text)) return undefined;
  return Number(text);
}

/** A variable's value as a message shows it: one short line. */
function shownValue(text: string | undefined): string {
  return shown(String(text), 40);
}

/** Whether `--shard` was given as auto/N. */
export function isAutoShard(text: string): boolean {
  return /^\s*auto\s*\//i.test(text);
}

/** K (1-based) from the scheduler's variables, for N shards. */
function autoIndex(count: number, env: Env): number {
  const name = SHARD_INDEX_VARIABLES.find((v) => env[v] !== undefined && env[v] !== '');
  if (!name) {
    throw new UsageError(
      `--shard auto/${count} takes the shard from JOB_COMPLETION_INDEX (Kubernetes indexed Job), SLURM_ARRAY_TASK_ID (Slurm array) or AWS_BATCH_JOB_ARRAY_INDEX (AWS Batch array), and none is set; run it as a job array task, or give --shard K/${count}`,
    );
  }
  const raw = env[name];
  const value = wholeNumber(raw);
  if (value === undefined) throw new UsageError(`--shard auto/${count}: ${name} is '${shownValue(raw)}', not a whole number; give --shard K/${count}`);
  let index = value + 1;
  let range = `0 to ${count - 1}`;
  if (name === 'SLURM_ARRAY_TASK_ID') {
    const step = env.SLURM_ARRAY_TASK_STEP;
    if (step !== undefined && wholeNumber(step) !== 1) {
      throw new UsageError(`--shard auto/${count}: the Slurm array steps by ${shownValue(step)} (SLURM_ARRAY_TASK_STEP); use a contiguous array, e.g. --array=1-${count}`);
    }
    const min = env.SLURM_ARRAY_TASK_MIN === undefined ? 0 : wholeNumber(env.SLURM_ARRAY_TASK_MIN);
    if (min === undefined) throw new UsageError(`--shard auto/${count}: SLURM_ARRAY_TASK_MIN is '${shownValue(env.SLURM_ARRAY_TASK_MIN)}', not a whole number`);
    const given = env.SLURM_ARRAY_TASK_COUNT !== undefined && env.SLURM_ARRAY_TASK_COUNT !== '';
    const tasks = given ? wholeNumber(env.SLURM_ARRAY_TASK_COUNT) : undefined;
    if (given && tasks === undefined) {
      throw new UsageError(`--shard auto/${count}: SLURM_ARRAY_TASK_COUNT is '${shownValue(env.SLURM_ARRAY_TASK_COUNT)}', not a whole number; give --shard K/${count}`);
    }
    if (tasks !== undefined && tasks !== count) {
      throw new UsageError(`--shard auto/${count}: the Slurm array has ${tasks} tasks (SLURM_ARRAY_TASK_COUNT), not ${count}; make them agree`);
    }
    index = value - min + 1;
    range = `${min} to ${min + count - 1}`;
  }
  if (index < 1 || index > count) throw new UsageError(`--shard auto/${count}: ${name} is ${value}, outside ${range}; the array must have ${count} tasks`);
  return index;
}

/**
 * `--shard K/N` or `--shard auto/N` (K from the environment) as a shard; a
 * usage error (exit 2) when it is neither or the index cannot be found.
 */
export function resolveShard(text: string, env: Env): Shard {
  if (isAutoShard(text)) {
    const m = /^\s*auto\s*\/\s*(\d{1,9})\s*$/i.exec(text);
    const count = m ? Number(m[1]) : NaN;
    if (!(count >= 1 && count <= MAX_SHARDS)) throw new UsageError(`${USAGE}, not '${shownValue(text)}'`);
    return { index: autoIndex(count, env), count };
  }
  const shard = parseShard(text);
  if (!shard) throw new UsageError(`${USAGE}, not '${shownValue(text)}'`);
  return shard;
}
