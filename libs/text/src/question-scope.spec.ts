import { questionScope, withoutInstructions, withoutWorkingInstructions } from './question-scope';

describe('questionScope', () => {
  it('tells list and compare questions from single-document ones', () => {
    expect(questionScope('Which of the accidents were fatal? Name the locations.')).toBe('list');
    expect(questionScope('Which accidents happened on December 8, 2007?')).toBe('list');
    expect(questionScope('List all reports that mention icing.')).toBe('list');
    expect(questionScope('Who had more flight time: the pilot in A or the pilot in B?')).toBe('compare');
    expect(questionScope('Compare the net sales of Apple and Microsoft.')).toBe('compare');
    expect(questionScope('Of the accidents at A and B, which aircraft had the more powerful engine?')).toBe(
      'compare',
    );
    for (const q of [
      "What was the pilot's total flight time in the accident near Tallahassee?",
      'How do I get MetaPost to write SVG files instead of PostScript?',
      'latex set all margins 2cm',
      'Which unit do the DocBook XSL stylesheets assume for a dimension given without units?',
    ])
      expect(questionScope(q)).toBe('single');
  });
});

describe('questionScope: trend questions', () => {
  it('takes a question about how something developed over periods for a trend', () => {
    for (const q of [
      "How has Apple's total net sales changed over time?",
      'How have operating expenses evolved in the last three quarters?',
      'How did revenue change between the first and the third quarter?',
      'What was the gross margin over the past four quarters?',
      'Summarise the trend in research and development spending.',
      'What is the year-over-year growth of services revenue?',
    ])
      expect(`${q} ${questionScope(q)}`).toBe(`${q} trend`);
  });

  it('leaves questions about what changes something, or one change, to one document', () => {
    for (const q of [
      'How does the scale option change the output?',
      'How do I change the margins of a booktabs table?',
      'What changed in the 2022 release of the doc package?',
      'How can I change the default value of \\heavyrulewidth?',
    ])
      expect(`${q} ${questionScope(q)}`).toBe(`${q} single`);
  });

  it('keeps a list or comparison about change a list or comparison', () => {
    expect(questionScope('Which of the companies increased their net sales over time?')).toBe('list');
    expect(questionScope('Compare how net sales changed at Apple and at Microsoft over time.')).toBe(
      'compare',
    );
  });
});

describe('withoutInstructions', () => {
  it('drops answer instructions after the question, keeps the question', () => {
    expect(withoutInstructions('Which of the accidents were fatal? Name the locations.')).toBe(
      'Which of the accidents were fatal?',
    );
    expect(withoutInstructions('Give me the default. Why is it 2cm? List the options.')).toBe(
      'Give me the default. Why is it 2cm?',
    );
    expect(withoutInstructions('latex set all margins 2cm')).toBe('latex set all margins 2cm');
  });

  it('drops the instructions analysts wrap a question in, before and after it', () => {
    expect(
      withoutInstructions(
        'Assume that you are a public equities analyst. Answer the following question by primarily using information that is shown in the balance sheet: what is the year end FY2018 net PPNE for 3M? Answer in USD billions.',
      ),
    ).toBe('what is the year end FY2018 net PPNE for 3M?');
    expect(
      withoutInstructions(
        'Does AMEX have an improving operating margin? If operating margin is not a useful metric for a company like this, then state that and explain why.',
      ),
    ).toBe('Does AMEX have an improving operating margin?');
    expect(
      withoutInstructions('We need to calculate a metric. Round your answer to two decimal places.'),
    ).toBe('We need to calculate a metric.');
    expect(
      withoutInstructions('What is the capex? Give a response by relying on the cash flow statement.'),
    ).toBe('What is the capex?');
  });
});

describe('withoutWorkingInstructions', () => {
  it('keeps an instruction that names what to give, drops those that say how to work', () => {
    expect(
      withoutWorkingInstructions('Which accidents involved a Cessna 152? Give the registration numbers.'),
    ).toBe('Which accidents involved a Cessna 152? Give the registration numbers.');
    expect(
      withoutWorkingInstructions(
        'What is the FY2018 capex for 3M? Give a response to the question by relying on the details shown in the cash flow statement.',
      ),
    ).toBe('What is the FY2018 capex for 3M?');
    expect(
      withoutWorkingInstructions(
        'Assume that you are an analyst. Answer the following question using the balance sheet: what is the net PPNE? Answer in USD billions.',
      ),
    ).toBe('what is the net PPNE?');
  });

  it('drops a leading clause that says where to look, keeps the question after it', () => {
    expect(
      withoutWorkingInstructions(
        'According to the details clearly outlined within the balance sheet, how much total current assets did Nike have at the end of FY2019?',
      ),
    ).toBe('how much total current assets did Nike have at the end of FY2019?');
    expect(
      withoutWorkingInstructions(
        'By drawing conclusions from the information stated only in the income statement, what is Amazon’s FY2017 COGS?',
      ),
    ).toBe('what is Amazon’s FY2017 COGS?');
    // a clause that is part of what is asked stays
    expect(withoutWorkingInstructions('Using SSH keys, how do I log in without a password?')).toBe(
      'Using SSH keys, how do I log in without a password?',
    );
    expect(withoutWorkingInstructions('According to the FAQ, is Debian free?')).toBe(
      'According to the FAQ, is Debian free?',
    );
  });
});
