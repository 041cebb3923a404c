// @Type on purpose: a DTO class-transformer reads its own way gets no compiled check.
// eslint-disable-next-line no-restricted-imports
import { Expose, plainToInstance, Transform, Type } from 'class-transformer';
import { IsOptional, IsString, validateSync } from 'class-validator';
import { ListCallsQuery } from '../../calls/dto/list-calls.query';
import { ListLeadsQuery } from '../../leads/dto/list-leads.query';
import { ListEventsQueryDto } from '../../events/dto/event.dto';
import { TranscriptQuery } from '../../transcripts/dto/transcript.dto';
import { ListDeliveriesQueryDto } from '../../webhooks/dto/webhook.dto';
import { compiledQueryCheck } from './compiled-query';
import { NoQueryDto } from './no-query.dto';

type Query = Record<string, string>;

/** What the validation pipe's full path makes of a query: the instance when class-validator finds nothing, else undefined. */
function fullPath(metatype: new () => object, query: Query): object | undefined {
  const instance = plainToInstance(metatype, query);
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: false,
    stopAtFirstError: true,
  });
  return errors.length ? undefined : instance;
}

const CALL_VALUES: Record<string, string[]> = {
  from: ['2026-05-01T00:00:00Z', '2026-05-01T00:00:00.123456+02:00', '2026-05-01', '2026-13-01T00:00:00Z', 'yesterday', ''],
  updated_since: ['2026-05-01T00:00:00Z', '2026-02-30T00:00:00Z', 'x'],
  outcome: ['transferred', 'nope', ''],
  answered: ['true', 'false', 'TRUE', '1'],
  caller_number: ['+13125550100', '', '(312) 555-0100'],
  reference: ['AB12', ''],
  ids: ['call_a,call_b', ',', 'a,,b', ''],
  limit: ['1', '20', '100', '0', '101', '-1', '1e2', 'abc', '', '007', ' 5'],
  cursor: ['abc', ''],
};

describe('compiledQueryCheck', () => {
  it('accepts exactly the queries class-transformer + class-validator accept, with the same instance', () => {
    const check = compiledQueryCheck(ListCallsQuery);
    expect(check).not.toBeNull();
    const names = Object.keys(CALL_VALUES);
    for (const name of names) {
      for (const value of CALL_VALUES[name]) {
        for (const other of [{}, { limit: '100' }, { limit: '0' }, { answered: 'maybe' }] as Query[]) {
          const query = { ...other, [name]: value };
          const full = fullPath(ListCallsQuery, query);
          const compiled = check?.(query);
          // Where class-validator refuses, the compiled check never accepts (the pipe then words the 400 as before).
          if (!full) expect({ query, compiled }).toEqual({ query, compiled: undefined });
          // Where it accepts, so does the compiled check, with an equal instance of the DTO (limit a number).
          else {
            expect(compiled).toBeInstanceOf(ListCallsQuery);
            expect({ ...compiled }).toEqual({ ...full });
          }
        }
      }
    }
  });

  it('reads limit as a number and leaves the other members as sent', () => {
    const out = compiledQueryCheck(ListLeadsQuery)?.({ limit: '100', status: 'new', caller_number: '+13125550100' });
    expect(out).toBeInstanceOf(ListLeadsQuery);
    expect({ ...out }).toEqual({ limit: 100, status: 'new', caller_number: '+13125550100' });
  });

  it('leaves repeated parameters, undeclared members and members of an empty DTO to the full path', () => {
    const calls = compiledQueryCheck(ListCallsQuery);
    expect(calls?.({ limit: ['1', '2'] } as unknown as Query)).toBeUndefined();
    expect(calls?.({ updatedSince: '2026-05-01T00:00:00Z' })).toBeUndefined();
    expect(compiledQueryCheck(NoQueryDto)?.({})).toBeInstanceOf(NoQueryDto);
    expect(compiledQueryCheck(NoQueryDto)?.({ x: '1' })).toBeUndefined();
  });
});

class TypedQuery {
  @IsOptional() @Type(() => Number) limit?: number;
}
class RenamedQuery {
  @IsOptional() @IsString() @Expose({ name: 'page_size' }) size?: string;
}
class HandTransformedQuery {
  @IsOptional() @Transform(({ value }) => String(value).trim()) @IsString() name?: string;
}

describe("compiledQueryCheck of the service's own query DTOs", () => {
  it.each(
    [ListCallsQuery, ListLeadsQuery, TranscriptQuery, ListEventsQueryDto, ListDeliveriesQueryDto, NoQueryDto].map((m) => [m.name, m]),
  )('%s has one (its valid queries skip the full path)', (_name, metatype) => expect(compiledQueryCheck(metatype)).not.toBeNull());
});

describe('compiledQueryCheck, where class-transformer would read the query otherwise', () => {
  it.each([
    ['@Type', TypedQuery],
    ['@Expose', RenamedQuery],
    ['a @Transform not declared with QueryTransform', HandTransformedQuery],
  ])('gives no compiled check to a DTO using %s (the full path decides)', (_what, metatype) => {
    expect(compiledQueryCheck(metatype)).toBeNull();
  });
});
