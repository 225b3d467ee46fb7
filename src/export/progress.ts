/**
 * The progress line on stderr: rows, share and bar when the total is known,
 * rows per second and an estimate of the time left. Redrawn at most a few
 * times a second; cleared when the export ends. Asked for without a
 * terminal (--progress in cron), a plain line every ten seconds instead.
 */
import type { OutStream } from '../output/io.js';

export interface Progress {
  /** Rows written so far. */
  update(rows: number): void;
  /** The total, once a count request answered. */
  setTotal(total: number): void;
  /** Removes the line. */
  clear(): void;
}

const REDRAW_MS = 200;
/** Without a terminal (--progress into a log file), a plain line this often, never a redraw's control characters. */
const LOG_LINE_MS = 10_000;
const BAR = 20;

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/** Renders one progress line (pure, for tests). */
export function renderProgress(label: string, rows: number, total: number | undefined, rate: number): string {
  const n = (x: number): string => Math.round(x).toLocaleString('en-US');
  if (total === undefined || total <= 0) return `${label}: ${n(rows)} rows  ${n(rate)} rows/s`;
  const share = Math.min(1, rows / total);
  const filled = Math.round(share * BAR);
  const eta = rate > 0 ? clock((total - Math.min(rows, total)) / rate) : '?';
  return `${label}: [${'#'.repeat(filled)}${'-'.repeat(BAR - filled)}] ${n(rows)}/${n(total)} rows  ${n(rate)} rows/s  ETA ${eta}`;
}

/** A progress line on `out`, starting now, resumed exports counting from `startRows`. */
export function createProgress(out: OutStream, now: () => number, label: string, startRows = 0): Progress {
  const t0 = now();
  let total: number | undefined;
  let shownAt = -Infinity;
  let drawn = false;
  let latest = startRows;
  const terminal = out.isTTY === true;
  const draw = (): void => {
    // Rows per second count only this run's rows (a resumed export starts with some).
    const rate = ((latest - startRows) * 1000) / Math.max(1, now() - t0);
    const line = renderProgress(label, latest, total, rate);
    out.write(terminal ? `\r\x1b[K${line}` : `${line}\n`);
    drawn = terminal;
    shownAt = now();
  };
  return {
    update(rows) {
      latest = rows;
      if (now() - shownAt >= (terminal ? REDRAW_MS : LOG_LINE_MS)) draw();
    },
    setTotal(t) {
      total = t;
    },
    clear() {
      if (drawn) out.write('\r\x1b[K');
      drawn = false;
    },
  };
}
