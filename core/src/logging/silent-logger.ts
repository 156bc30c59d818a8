import type { Logger } from '@swarm/plugin-sdk';
import pino from 'pino';

/** The logger services get when the host was given none: pino with everything off. */
export const silentLogger: Logger = pino({ level: 'silent' }) as unknown as Logger;
