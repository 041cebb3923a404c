import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { Nested } from './nested';
import { undeclaredMembers } from './declared-members';

class Leaf {
  @IsString() name: string;
}

class Documented {
  @ApiProperty({ description: 'A documented member without a validator.' }) note: string;
}

class Root {
  @IsString() title: string;
  @Nested(() => Leaf) leaf: Leaf;
  @Nested(() => Leaf, { each: true }) leaves: Leaf[];
  @ApiProperty({ type: () => Documented }) documented: Documented;
  @ApiProperty({ type: [Number] }) numbers: number[];
}

describe('undeclaredMembers', () => {
  it('names own members the class does not declare, at every level it declares a class for', () => {
    const value = JSON.parse(
      '{"title":"t","constructor":1,"leaf":{"name":"n","valueOf":2},"leaves":[{"name":"a"},{"toString":3}],' +
        '"documented":{"note":"x","__proto__":4},"numbers":[1,2],"zzz":5}',
    ) as unknown;
    expect(undeclaredMembers(value, Root)).toEqual(['constructor', 'leaf.valueOf', 'leaves[1].toString', 'documented.__proto__', 'zzz']);
  });

  it('leaves values that are not objects to the validators', () => {
    expect(undeclaredMembers({ title: 't', leaf: 'text', leaves: [1, null], numbers: [{ x: 1 }] }, Root)).toEqual([]);
    // A list where one object is declared: class-validator would validate each item, so each is checked.
    expect(undeclaredMembers({ leaf: [{ name: 'n', valueOf: 1 }] }, Root)).toEqual(['leaf[0].valueOf']);
    expect(undeclaredMembers(null, Root)).toEqual([]);
  });

  it('a path prefix is kept', () => {
    expect(undeclaredMembers({ hasOwnProperty: 1 }, Leaf, 'routing.x')).toEqual(['routing.x.hasOwnProperty']);
  });
});
