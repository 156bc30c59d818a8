import { describe, expect, it } from 'vitest';
import { humanDuration } from '@swarm/plugin-sdk/helpers';
import { statusText } from '../src/container-row.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe('STATUS words as docker prints them', () => {
  it.each([
    [400, 'Less than a second'],
    [1 * SECOND, '1 second'],
    [59 * SECOND, '59 seconds'],
    [61 * SECOND, 'About a minute'],
    [59 * MINUTE, '59 minutes'],
    [80 * MINUTE, 'About an hour'],
    [47 * HOUR, '47 hours'],
    [3 * DAY, '3 days'],
    [20 * DAY, '2 weeks'],
    [90 * DAY, '3 months'],
    [800 * DAY, '2 years'],
  ])('%d ms → %s', (ms, words) => expect(humanDuration(ms)).toBe(words));

  const now = Date.parse('2026-12-02T12:00:00Z');
  const at = (ms: number) => new Date(now - ms).toISOString();
  it.each([
    [{ Status: 'created', StartedAt: '0001-01-01T00:00:00Z', FinishedAt: '0001-01-01T00:00:00Z' }, 'Created'],
    [{ Status: 'running', Running: true, StartedAt: at(5 * SECOND) }, 'Up 5 seconds'],
    [{ Status: 'running', Running: true, StartedAt: at(5 * SECOND), Health: { Status: 'unhealthy' } }, 'Up 5 seconds (unhealthy)'],
    [{ Status: 'paused', Running: true, Paused: true, StartedAt: at(2 * HOUR) }, 'Up 2 hours (Paused)'],
    [
      { Status: 'restarting', Running: true, Restarting: true, ExitCode: 1, StartedAt: at(MINUTE), FinishedAt: at(2 * SECOND) },
      'Restarting (1) 2 seconds ago',
    ],
    [{ Status: 'exited', ExitCode: 137, StartedAt: at(HOUR), FinishedAt: at(3 * MINUTE) }, 'Exited (137) 3 minutes ago'],
    [{ Status: 'dead', Dead: true, StartedAt: at(HOUR), FinishedAt: at(MINUTE) }, 'Dead'],
    [{ Status: 'removing', StartedAt: at(HOUR), FinishedAt: at(MINUTE) }, 'Removal In Progress'],
  ])('%j → %s', (state, text) => expect(statusText(state, now)).toBe(text));
});
