import { prepareDocument } from './document-chunks';

describe('prepareDocument: financial statement pages', () => {
  const rows = [
    'Net income including noncontrolling interest $ 5,363 $ 4,869 $ 5,058',
    'Depreciation and amortization 1,488 1,544 1,474',
    'Accounts receivable (305) (245) (313)',
    'Inventories (509) (387) 57',
    'Accounts payable 408 24 148',
    'Net cash provided by (used in) operating activities 6,439 6,240 6,662',
    'Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)',
    'Proceeds from sale of PP&E and other assets 262 49 58',
  ];
  const doc = prepareDocument({
    fileName: '3M_2018_10K.pdf',
    pages: [
      {
        pageNumber: 59,
        text: 'Liquidity\nThe Company generates strong cash flows from operations and funds its capital spending from them.',
      },
      {
        pageNumber: 60,
        text: [
          '3M Company and Subsidiaries',
          'Consolidated Statement of Cash Flows',
          '(Millions) 2018 2017 2016',
          ...rows,
        ].join('\n'),
      },
    ],
  });

  it("leads a statement page's chunk sections with the statement's plain name, and embeds it", () => {
    const onStatement = doc.chunks.filter((c) => c.pageNumber === 60);
    expect(onStatement.length).toBeGreaterThan(0);
    for (const c of onStatement) {
      expect(c.section.startsWith('Cash flow statement')).toBe(true);
      expect(c.embeddingText).toContain('Cash flow statement');
    }
  });

  it('leaves other pages as they were', () => {
    const prose = doc.chunks.filter((c) => c.pageNumber === 59);
    expect(prose.length).toBeGreaterThan(0);
    for (const c of prose) expect(c.section).not.toContain('Cash flow statement');
  });
});
