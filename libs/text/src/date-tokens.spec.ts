import { dateMentions, dateTokens, withoutDates } from './date-tokens';

describe('dateTokens', () => {
  it('gives a question and a document the same tokens for the same day', () => {
    const doc = dateTokens('Date & Time: 12/28/2007, 1730 EST');
    expect(doc).toEqual(['20071228', '200712']);
    for (const q of ['on December 28, 2007?', 'on 28 December 2007', 'Dec. 28th 2007', '2007-12-28'])
      expect(dateTokens(q)).toEqual(expect.arrayContaining(['20071228', '200712']));
  });

  it('keeps both readings of an ambiguous numeric date, and a month alone as a period', () => {
    expect(dateTokens('08/12/2007')).toEqual(['20070812', '200708', '20071208', '200712']);
    expect(dateTokens('in January 2008')).toEqual(['200801']);
    expect(dateTokens('the quarter ended June 30, 2023')).toEqual(['20230630', '202306']);
  });

  it('ignores impossible dates and plain numbers', () => {
    expect(dateTokens('13/45/2007 and 2,319 hours and version 4.2.2 and 2007')).toEqual([]);
    expect(dateTokens('February 30, 2023')).toEqual([]);
  });

  it('blanks the dates out of a text', () => {
    expect(
      withoutDates('Which accidents happened on December 8, 2007 or 12/09/2007?').replace(/\s+/g, ' '),
    ).toBe('Which accidents happened on or ?');
  });

  it('lists mentions in order, one entry per mention', () => {
    expect(dateMentions('Report Date: 01/31/2008. Accident on December 8, 2007.')).toEqual([
      ['20080131', '200801'],
      ['20071208', '200712'],
    ]);
  });
});
