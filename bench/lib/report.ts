/** A bench's report: each text printed as it is said, and kept for its results file. */
export function reportLines(): { lines: string[]; say: (text: string) => void } {
  const lines: string[] = [];
  return {
    lines,
    say(text) {
      lines.push(text);
      console.log(text);
    },
  };
}
