import { lineItemOfRow, lineItemsAsked } from './line-items';

describe('lineItemsAsked', () => {
  it("finds the line items a question asks for, with the question's own words", () => {
    expect(lineItemsAsked('What is the FY2018 capital expenditure amount for 3M?')).toEqual([
      { item: 'capex', stems: ['capital', 'expenditure'] },
    ]);
    expect(lineItemsAsked('What is the FY2016 COGS for Microsoft?').map((i) => i.item)).toEqual([
      'cost-of-sales',
    ]);
    expect(lineItemsAsked("What was Amazon's net income and total revenue?").map((i) => i.item)).toEqual([
      'revenue',
      'net-income',
    ]);
    expect(lineItemsAsked('What is the year end FY2018 net PPNE for 3M?').map((i) => i.item)).toEqual([
      'net-ppe',
    ]);
    expect(
      lineItemsAsked("What is Boeing's FY2018 net property, plant, and equipment?").map((i) => i.item),
    ).toEqual(['net-ppe']);
    expect(lineItemsAsked('How do I restart the print spooler?')).toEqual([]);
  });
});

describe('lineItemOfRow', () => {
  it('names the line item a statement row prints, whatever its caption', () => {
    expect(lineItemOfRow('Purchases of property, plant and equipment (PP&E) (1,577) (1,373)')).toBe('capex');
    expect(lineItemOfRow('Payments for acquisition of property, plant and equipment (4,589)')).toBe('capex');
    expect(lineItemOfRow('Net sales $ 177,866 $ 135,987')).toBe('revenue');
    expect(lineItemOfRow('Cost of sales 20,441 19,038')).toBe('cost-of-sales');
    expect(lineItemOfRow('Net earnings attributable to Best Buy Co., Inc. $ 1,228 $ 897')).toBe('net-income');
    expect(lineItemOfRow('Net cash provided by operating activities 6,439 6,240')).toBe(
      'operating-cash-flow',
    );
    expect(lineItemOfRow('Property, plant and equipment - net 8,738 8,866')).toBe('net-ppe');
    expect(lineItemOfRow('Property and equipment, net 72,705 48,866')).toBe('net-ppe');
    expect(lineItemOfRow('Net property, plant and equipment 4,466 4,454')).toBe('net-ppe');
  });

  it('names none for other rows', () => {
    expect(lineItemOfRow('Proceeds from sale of PP&E and other assets 262 49')).toBeUndefined();
    expect(lineItemOfRow('Sales and marketing expenses 1,204 1,100')).toBeUndefined();
    // property at cost, before depreciation, is no net PP&E
    expect(lineItemOfRow('Property, plant and equipment 24,873 24,160')).toBeUndefined();
    expect(lineItemOfRow('Net sales growth was strong in every segment.')).toBeUndefined();
  });
});
