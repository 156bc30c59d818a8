/**
 * Split a command line as a POSIX shell would for plain words: whitespace separates, single
 * quotes keep everything, double quotes keep everything but `\"` and `\\`, a backslash escapes
 * the next character. Leading `docker run` or `swarm schedule --explain` is dropped, so a command
 * pasted from a terminal works as it is. Throws on an unclosed quote.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: "'" | '"' | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index]!;
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word += char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === '\\' && (line[index + 1] === '"' || line[index + 1] === '\\')) word += line[++index];
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      inWord = true;
    } else if (char === '\\' && index + 1 < line.length) {
      word += line[++index];
      inWord = true;
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += char;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unclosed ${quote === '"' ? 'double' : 'single'} quote`);
  if (inWord) words.push(word);
  return dropCommand(words);
}

function dropCommand(words: string[]): string[] {
  if (words[0] === 'docker' && (words[1] === 'run' || words[1] === 'create')) return words.slice(2);
  if (words[0] === 'docker' && words[1] === 'container' && (words[2] === 'run' || words[2] === 'create')) return words.slice(3);
  if (words[0] === 'swarm' && words[1] === 'schedule') return words.slice(2).filter((word) => word !== '--explain');
  return words;
}
