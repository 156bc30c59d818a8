import { describe, expect, it } from 'vitest';
import { ErrorCodes, SwarmError, defineError, isSwarmError } from '@swarm/plugin-sdk';
import { SdkErrors } from '@swarm/plugin-sdk/helpers';

describe('error catalogues (defineError)', () => {
  const nameInUse = defineError('test.name-in-use', {
    code: ErrorCodes.NAME_IN_USE,
    message: (p: { name: string }) => `Conflict: The name ${p.name} is already assigned.`,
  });
  const engineDown = defineError('test.engine-down', { code: ErrorCodes.ENGINE_ERROR, message: () => 'down' });

  it("builds coded errors: the template's text, the code's status unless the entry gives one", () => {
    const error = nameInUse({ name: 'web' });
    expect(error).toBeInstanceOf(SwarmError);
    expect(error).toMatchObject({ code: 'SWARM_ERR_NAME_IN_USE', httpStatus: 409, message: 'Conflict: The name web is already assigned.' });
    expect(nameInUse.code).toBe(ErrorCodes.NAME_IN_USE);
    expect(nameInUse.httpStatus).toBe(409);
    expect(engineDown().httpStatus).toBe(500);
    const teapot = defineError('test.teapot', { code: ErrorCodes.INVALID_ARGUMENT, httpStatus: 418, message: () => 'short and stout' });
    expect(teapot().httpStatus).toBe(418);
  });

  it('keeps a cause, details and a status the caller passes through (an engine status)', () => {
    const cause = new Error('socket hang up');
    const error = engineDown(undefined, { cause, details: { node: 'n1' }, httpStatus: 503 });
    expect(error.cause).toBe(cause);
    expect(error.httpStatus).toBe(503);
    expect(error.details).toMatchObject({ node: 'n1' });
  });

  it('recognises its own errors by entry, never by message, across SDK copies (a plain object of the same shape)', () => {
    const error = nameInUse({ name: 'web' });
    expect(nameInUse.is(error)).toBe(true);
    expect(engineDown.is(error)).toBe(false);
    const sameText = new SwarmError(ErrorCodes.NAME_IN_USE, error.message);
    expect(nameInUse.is(sameText)).toBe(false);
    const fromAnotherCopy = {
      name: 'SwarmError',
      message: error.message,
      code: error.code,
      httpStatus: 409,
      details: { ...error.details },
    };
    expect(isSwarmError(fromAnotherCopy)).toBe(true);
    expect(nameInUse.is(fromAnotherCopy)).toBe(true);
  });

  it("keeps Swarm classic's texts in the SDK's own catalogue", () => {
    expect(SdkErrors.noResources().message).toBe('no resources available to schedule container');
    expect(SdkErrors.expressionOperatorMissing().message).toBe('One of operator ==, != is expected');
    expect(SdkErrors.expressionKeyInvalid({ key: '1x' }).message).toBe("Key '1x' is invalid");
    expect(SdkErrors.reschedulePolicyInvalid({ policy: 'always' })).toMatchObject({
      httpStatus: 400,
      message: 'invalid reschedule policy: always',
    });
  });
});
