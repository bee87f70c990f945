/*
 * Licensed to the Apache Software Foundation (ASF) under one or more contributor license
 * agreements. See the NOTICE file distributed with this work. The ASF licenses this file to
 * You under the Apache License, Version 2.0 (the "License"); you may not use this file except
 * in compliance with the License. You may obtain a copy of the License at
 *
 *      http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software distributed under the
 * License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND,
 * either express or implied. See the License for the specific language governing permissions
 * and limitations under the License.
 */
package demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CalcTest {
    @Test
    void addsNegatives() {
        assertEquals(-4, Calc.add(-1, -3));
    }

    @ParameterizedTest
    @CsvSource({"200, 10, 20", "50, 50, 25"})
    void percent(int amount, int pct, int expected) {
        assertEquals(expected, Calc.percent(amount, pct));
    }

    @Test
    @Disabled("rounding rules pending")
    void rounds() {}
}
