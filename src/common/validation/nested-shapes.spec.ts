import 'reflect-metadata';
import { IsArray, IsOptional, IsString, ValidateIf } from 'class-validator';
import { Nested } from './nested';
import { nestedMembers, shapeProblems } from './nested-shapes';

class Leaf {
  @IsString() name: string;
}

class Root {
  @Nested(() => Leaf) leaf: Leaf;
  @IsOptional() @Nested(() => Leaf) maybe: Leaf | null = null;
  @ValidateIf((_o: object, v: unknown) => v !== undefined) @Nested(() => Leaf) omittable: Leaf = new Leaf();
  @IsArray() @Nested(() => Leaf, { each: true }) leaves: Leaf[] = [];
  @IsArray() @IsString({ each: true }) words: string[] = [];
}

describe('nestedMembers', () => {
  it('reads one object, a list of objects and nullability from the decorators, leaving plain arrays out', () => {
    expect(nestedMembers(Root).map(({ name, list, nullable }) => ({ name, list, nullable }))).toEqual([
      { name: 'leaf', list: false, nullable: false },
      { name: 'maybe', list: false, nullable: true },
      { name: 'omittable', list: false, nullable: false },
      { name: 'leaves', list: true, nullable: false },
    ]);
  });
});

describe('shapeProblems', () => {
  it('accepts objects where objects are declared, lists of objects, null where nullable and omission', () => {
    expect(shapeProblems({ leaf: { name: 'a' }, maybe: null, leaves: [{ name: 'b' }], words: ['x'] }, Root)).toEqual([]);
  });

  it.each([
    ['an array for one object', { leaf: [] }, 'leaf', 'must be an object'],
    ['an array holding the object', { leaf: [{ name: 'a' }] }, 'leaf', 'must be an object'],
    ['a string for one object', { leaf: 'a' }, 'leaf', 'must be an object'],
    ['a number for a nullable object', { maybe: 1 }, 'maybe', 'must be an object or null'],
    ['null where only omission is allowed', { omittable: null }, 'omittable', 'must be an object'],
    ['an object for a list', { leaves: { name: 'a' } }, 'leaves', 'must be an array'],
    ['an array as a list item', { leaves: [{ name: 'a' }, []] }, 'leaves[1]', 'must be an object'],
    ['null as a list item', { leaves: [null] }, 'leaves[0]', 'must be an object'],
  ])('refuses %s, naming the member', (_what, value, path, message) => {
    expect(shapeProblems(value, Root, 'doc')).toEqual([{ path: `doc.${path}`, message }]);
  });
});
