/**
 * The CLI loads a command's module only when that command runs (pipeline/cli/soulgraph.ts):
 * its table of names and descriptions must say what the modules say.
 */
import { describe, expect, it } from 'vitest';
import { COMMANDS, programFor } from '../../pipeline/cli/soulgraph.ts';

describe('the soulgraph command table', () => {
  it.each(Object.keys(COMMANDS))('describes %s as its module does', async (name) => {
    const command = await COMMANDS[name]!.load();
    expect(command.name()).toBe(name);
    expect(COMMANDS[name]!.description).toBe(command.description());
  });

  it('loads only the command being run; the others are names and descriptions', async () => {
    const program = await programFor(['apikey', '--help']);
    const apikey = program.commands.find((c) => c.name() === 'apikey')!;
    const status = program.commands.find((c) => c.name() === 'status')!;
    expect(apikey.commands.map((c) => c.name())).toEqual(['create', 'list', 'revoke']);
    expect(status.options).toEqual([]);
    expect(program.commands.map((c) => c.name())).toEqual(Object.keys(COMMANDS));
  });

  it('loads the command `help <name>` asks about', async () => {
    const program = await programFor(['help', 'apikey']);
    expect(program.commands.find((c) => c.name() === 'apikey')!.commands.length).toBeGreaterThan(0);
  });
});
