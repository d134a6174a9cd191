/** One status line on stderr, rewritten in place at most ten times a second. */
export function progressLine(stream: NodeJS.WriteStream = process.stderr): { update(text: string): void; done(): void } {
  let last = 0;
  let shown = false;
  return {
    update(text) {
      const now = Date.now();
      if (now - last < 100) return;
      last = now;
      shown = true;
      stream.write(stream.isTTY ? `\r${text}\u001b[K` : `${text}\n`);
    },
    done() {
      if (shown && stream.isTTY) stream.write('\n');
    },
  };
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
