import { abbreviateStates, statePostalCodes } from './place-names';

describe('US state names', () => {
  it('gives the postal codes of the states a text names, longest names first', () => {
    expect(statePostalCodes('near Tallahassee, Florida and in West Virginia, then Virginia')).toEqual([
      'FL',
      'WV',
      'VA',
    ]);
    expect(statePostalCodes('Washington   D.C. and New\nHampshire')).toEqual(['WA', 'NH']);
    expect(statePostalCodes('the Georgian era, indiana-jones')).toEqual(['IN']);
  });

  it('replaces names by codes', () => {
    expect(abbreviateStates('at Alton, New Hampshire on a lake in Texas')).toBe(
      'at Alton, NH on a lake in TX',
    );
  });
});
